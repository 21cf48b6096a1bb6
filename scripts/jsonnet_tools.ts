// The jsonnet tools of the mixin's tests, built from their Go modules once per machine by
// scripts/go_tool.ts: jb (jsonnet-bundler), for the documented install, and go-jsonnet.
import { ensureGoTool } from "./go_tool.js";

export const JsonnetBundlerVersion = "v0.6.0";

/** The path of jb at JsonnetBundlerVersion, built now if this machine has none. */
export function ensureJsonnetBundler(): string {
  return ensureGoTool({
    name: "jb",
    module: "github.com/jsonnet-bundler/jsonnet-bundler",
    pkg: "github.com/jsonnet-bundler/jsonnet-bundler/cmd/jb",
    version: JsonnetBundlerVersion,
    asModuleTool: true,
  });
}

export const GoJsonnetVersion = "v0.22.0";

/**
 * go-jsonnet's jsonnet at GoJsonnetVersion, built now if this machine has none: the
 * implementation jb users mostly run, and one whose std.format is native (Debian's C++ jsonnet
 * 0.18 takes seconds for a dashboard's placeholders).
 */
export function ensureGoJsonnet(): string {
  return ensureGoTool({
    name: "jsonnet",
    module: "github.com/google/go-jsonnet",
    pkg: "github.com/google/go-jsonnet/cmd/jsonnet",
    version: GoJsonnetVersion,
  });
}
