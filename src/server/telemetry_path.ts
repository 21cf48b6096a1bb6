// --web.telemetry-path: a plain path, and one no other route answers in any spelling. Express
// reads a route as a pattern (`/:x` matches every one-segment path, `/readyz` among them) and
// matches case-insensitively with or without a trailing slash; so only letters, digits and
// `-._~` between single slashes are accepted, and the comparison with the fixed routes ignores
// case.

/** The routes the exporter serves besides the telemetry path. */
export const fixedRoutes = ["/", "/healthz", "/readyz", "/api/v1/sources"] as const;

const plainPath = /^(\/[A-Za-z0-9._~-]+)+$/;

/** Why the path cannot be the telemetry path, or undefined when it can. */
export function telemetryPathProblem(path: string): string | undefined {
  if (!path.startsWith("/")) return "must start with /";
  if (!plainPath.test(path))
    return `${JSON.stringify(path)} is not a plain path: only letters, digits and -._~ between single slashes, no trailing slash`;
  if (path.split("/").some((segment) => segment === "." || segment === ".."))
    return `${JSON.stringify(path)} is not a plain path: it has a . or .. segment`;
  const clash = fixedRoutes.find((route) => route.toLowerCase() === path.toLowerCase());
  if (clash) return `${path} is already served by the exporter (as ${clash})`;
  return undefined;
}
