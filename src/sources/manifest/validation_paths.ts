// The path rules volumes, mounts, env files, security profiles and projected sources share
// (pkg/apis/core/validation/validation.go), and the projected files' owner.
import { type ErrorList, invalid, isValidUserID } from "./field.js";
import { isSet, num } from "./validation_json.js";

/** filepath.IsAbs on Linux. */
export const isAbs = (p: string): boolean => p.startsWith("/");

/**
 * validatePathNoBacksteps: no ".." element once split on "/" (filepath.ToSlash is the
 * identity on Linux, where the kubelet runs).
 */
export function validatePathNoBacksteps(targetPath: string, path: string): ErrorList {
  if (targetPath.split("/").includes(".."))
    return [invalid(path, targetPath, "must not contain '..'")];
  return [];
}

/** validateLocalDescendingPath: relative, and no "..". */
export function validateLocalDescendingPath(targetPath: string, path: string): ErrorList {
  const errs: ErrorList = [];
  if (isAbs(targetPath)) errs.push(invalid(path, targetPath, "must be a relative path"));
  errs.push(...validatePathNoBacksteps(targetPath, path));
  return errs;
}

/** ValidateLocalNonReservedPath: also not starting with "..". */
export function validateLocalNonReservedPath(targetPath: string, path: string): ErrorList {
  const errs = validateLocalDescendingPath(targetPath, path);
  if (targetPath.startsWith("..") && !targetPath.startsWith("../"))
    errs.push(invalid(path, targetPath, "must not start with '..'"));
  return errs;
}

/**
 * validateUserField (1.37): the owner uid of projected files. Older minors have no such
 * fields, and the typed decode drops them there.
 */
export function validateUserField(user: unknown, path: string): ErrorList {
  if (!isSet(user)) return [];
  const uid = num(user);
  return isValidUserID(uid).map((msg) => invalid(path, uid, msg));
}
