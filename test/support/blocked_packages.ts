// Node arguments for a child process in which some packages cannot be imported, as if they were
// not installed: proof that a code path never loads them.

/** `--import` of a module-resolution hook that fails every import of `packages`. */
export function withoutPackages(packages: readonly string[]): string[] {
  const hook = `export async function resolve(specifier, context, next) {
  if (${JSON.stringify(packages)}.some((p) => specifier === p || specifier.startsWith(p + "/")))
    throw new Error("blocked by the test: " + specifier);
  return next(specifier, context);
}`;
  const register = `import { register } from "node:module";
register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hook)}`)});`;
  return ["--import", `data:text/javascript,${encodeURIComponent(register)}`];
}
