// The part of the apiserver's ValidatePod that a static pod manifest can get wrong in practice,
// with the kubelet's field-error wording ("spec.containers[0].name: Required value").
import type { Pod } from "../../core/types.js";
import { isObject } from "../json_object.js";

const dns1123LabelPattern = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const dns1123Label = new RegExp(`^${dns1123LabelPattern}$`);
const dns1123Subdomain = new RegExp(`^${dns1123LabelPattern}(\\.${dns1123LabelPattern})*$`);
const dns1123LabelMaxLength = 63;
const dns1123SubdomainMaxLength = 253;

const labelHelp =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', " +
  "and must start and end with an alphanumeric character (e.g. 'my-name', or '123-abc')";
const subdomainHelp =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', " +
  "and must start and end with an alphanumeric character (e.g. 'example.com')";

function invalid(path: string, value: unknown, detail: string): string {
  return `${path}: Invalid value: ${JSON.stringify(value)}: ${detail}`;
}

function required(path: string): string {
  return `${path}: Required value`;
}

function validateName(path: string, value: string, subdomain: boolean): string[] {
  if (subdomain) {
    if (value.length > dns1123SubdomainMaxLength)
      return [invalid(path, value, `must be no more than ${dns1123SubdomainMaxLength} characters`)];
    return dns1123Subdomain.test(value) ? [] : [invalid(path, value, subdomainHelp)];
  }
  if (value.length > dns1123LabelMaxLength)
    return [invalid(path, value, `must be no more than ${dns1123LabelMaxLength} characters`)];
  return dns1123Label.test(value) ? [] : [invalid(path, value, labelHelp)];
}

/**
 * Containers and init containers: names required, DNS labels, unique across both lists (as the
 * apiserver checks init container names against the app containers); image required.
 */
function validateContainers(spec: Record<string, unknown>): string[] {
  const errors: string[] = [];
  const names = new Set<string>();
  for (const field of ["containers", "initContainers"] as const) {
    const list = spec[field];
    const path = `spec.${field}`;
    if (list === undefined || list === null) {
      if (field === "containers") errors.push(required(path));
      continue;
    }
    if (!Array.isArray(list)) {
      errors.push(`${path}: Invalid value: must be a list`);
      continue;
    }
    if (field === "containers" && list.length === 0) errors.push(required(path));
    list.forEach((container: unknown, i) => {
      const at = `${path}[${i}]`;
      if (!isObject(container)) {
        errors.push(`${at}: Invalid value: must be an object`);
        return;
      }
      const name = container.name;
      if (name === undefined || name === null || name === "") {
        errors.push(required(`${at}.name`));
      } else if (typeof name !== "string") {
        errors.push(`${at}.name: Invalid value: must be a string`);
      } else {
        errors.push(...validateName(`${at}.name`, name, false));
        if (names.has(name)) errors.push(`${at}.name: Duplicate value: ${JSON.stringify(name)}`);
        names.add(name);
      }
      if (typeof container.image !== "string" || container.image === "")
        errors.push(required(`${at}.image`));
    });
  }
  return errors;
}

/** Validates a pod after the static pod defaults; returns field errors, empty when valid. */
export function validatePod(pod: Pod): string[] {
  const errors: string[] = [];
  const { name, namespace } = pod.metadata;
  if (!name) errors.push(required("metadata.name"));
  else errors.push(...validateName("metadata.name", name, true));
  if (!namespace) errors.push(required("metadata.namespace"));
  else errors.push(...validateName("metadata.namespace", namespace, false));
  if (!isObject(pod.spec)) errors.push(required("spec"));
  else errors.push(...validateContainers(pod.spec));
  return errors;
}
