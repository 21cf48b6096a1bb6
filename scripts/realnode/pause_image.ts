// The sandbox image, made here from the locally built pause binary so the node pulls nothing:
// an OCI image layout (oci-layout, index.json, blobs) in a tar that `ctr images import` reads.
// One uncompressed layer holding /pause; the config's entrypoint runs it.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** The name the image is imported under, and the sandbox image containerd is configured with. */
export const pauseImage = "localhost/podconfig-exporter/pause:1";

interface Descriptor {
  mediaType: string;
  digest: string;
  size: number;
  annotations?: Record<string, string>;
}

function blob(dir: string, mediaType: string, content: Buffer): Descriptor {
  const hex = createHash("sha256").update(content).digest("hex");
  writeFileSync(join(dir, "blobs", "sha256", hex), content);
  return { mediaType, digest: `sha256:${hex}`, size: content.length };
}

/** Writes `out` (a tar) for `pauseBinary`, working in `workDir`, which it empties first. */
export function packPauseImage(pauseBinary: string, workDir: string, out: string): void {
  rmSync(workDir, { recursive: true, force: true });
  const rootfs = join(workDir, "rootfs");
  const layout = join(workDir, "layout");
  mkdirSync(rootfs, { recursive: true });
  mkdirSync(join(layout, "blobs", "sha256"), { recursive: true });
  copyFileSync(pauseBinary, join(rootfs, "pause"));
  const layerTar = join(workDir, "layer.tar");
  // Fixed owner, mode and time, so the same binary gives the same image digest.
  execFileSync("tar", [
    "--mtime=@0",
    "--owner=0",
    "--group=0",
    "--numeric-owner",
    "--mode=0755",
    "-cf",
    layerTar,
    "-C",
    rootfs,
    "pause",
  ]);
  const layer = blob(layout, "application/vnd.oci.image.layer.v1.tar", readFileSync(layerTar));
  const config = blob(
    layout,
    "application/vnd.oci.image.config.v1+json",
    Buffer.from(
      JSON.stringify({
        architecture: "amd64",
        os: "linux",
        config: { Entrypoint: ["/pause"] },
        rootfs: { type: "layers", diff_ids: [layer.digest] },
      }),
    ),
  );
  const manifest = blob(
    layout,
    "application/vnd.oci.image.manifest.v1+json",
    Buffer.from(
      JSON.stringify({
        schemaVersion: 2,
        mediaType: "application/vnd.oci.image.manifest.v1+json",
        config,
        layers: [layer],
      }),
    ),
  );
  manifest.annotations = { "io.containerd.image.name": pauseImage };
  writeFileSync(join(layout, "oci-layout"), JSON.stringify({ imageLayoutVersion: "1.0.0" }));
  writeFileSync(
    join(layout, "index.json"),
    JSON.stringify({ schemaVersion: 2, manifests: [manifest] }),
  );
  execFileSync("tar", ["--mtime=@0", "--owner=0", "--group=0", "-cf", out, "-C", layout, "."]);
}
