// actionlint for the release workflow's static check, built from source once per machine by
// scripts/go_tool.ts.
import { ensureGoTool } from "./go_tool.js";

export const ActionlintVersion = "v1.7.12";

/** The path of actionlint at ActionlintVersion, built now if this machine has none. */
export function ensureActionlint(): string {
  return ensureGoTool({
    name: "actionlint",
    module: "github.com/rhysd/actionlint",
    pkg: "github.com/rhysd/actionlint/cmd/actionlint",
    version: ActionlintVersion,
  });
}
