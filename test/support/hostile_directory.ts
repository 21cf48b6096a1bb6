// The hostile directory: the four refused bodies (each refused by the kubelet), a valid pod,
// a `.bak` copy of it that differs in its image (the kubelet reads it too, and its relist keeps
// the last file in byte order: the copy), a dotfile and a subdirectory (never read).
import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { refusedBodies } from "../differential/regressions.js";

const valid = (image: string) => `apiVersion: v1
kind: Pod
metadata:
  name: web
  namespace: kube-system
spec:
  containers:
  - name: web
    image: ${image}
`;

/** File name -> content; the first four are the four refused bodies. */
export const hostileFiles: ReadonlyMap<string, string> = new Map([
  ...refusedBodies.slice(0, 4).map((b, i): [string, string] => [`bad-${i + 1}.yaml`, b.text]),
  ["web.yaml", valid("nginx:1.27")],
  ["web.yaml.bak", valid("nginx:1.26")],
  [".web.yaml.swp", valid("nginx:1.25")],
]);

export const HostileSubdirectory = "old";

/**
 * The kubelet's verdict on each entry, "<name> <verdict>[ <winner>]": what the differential
 * tests find the kubelet's own code does (test/differential/sample.ts asserts it against the
 * oracle), and what the status page, /api/v1/manifests, the metrics and explain must say.
 */
export const HostileKubeletVerdicts: readonly string[] = [
  ".web.yaml.swp ignored",
  "bad-1.yaml refused",
  "bad-2.yaml refused",
  "bad-3.yaml refused",
  "bad-4.yaml refused",
  "old ignored",
  "web.yaml duplicate web.yaml.bak",
  "web.yaml.bak stored",
];

/** Writes the directory under a fresh temporary one; returns its path. */
export async function writeHostileDirectory(parent = tmpdir()): Promise<string> {
  const dir = await mkdtemp(join(parent, "hostile-"));
  for (const [name, text] of hostileFiles) await writeFile(join(dir, name), text);
  await mkdir(join(dir, HostileSubdirectory));
  return dir;
}
