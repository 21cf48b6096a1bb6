// Field errors in the apiserver's wording (k8s.io/apimachinery/pkg/util/validation/field), and
// the name and value checks of k8s.io/apimachinery/pkg/util/validation that a pod uses.

export const required = (path: string): string => `${path}: Required value`;
export const forbidden = (path: string, detail: string): string => `${path}: Forbidden: ${detail}`;
export const duplicate = (path: string, value: unknown): string =>
  `${path}: Duplicate value: ${JSON.stringify(value)}`;
export const notFound = (path: string, value: unknown): string =>
  `${path}: Not found: ${JSON.stringify(value)}`;
export const invalid = (path: string, value: unknown, detail: string): string =>
  `${path}: Invalid value: ${JSON.stringify(value)}: ${detail}`;
export const tooLong = (path: string, limit: number): string =>
  `${path}: Too long: must have at most ${limit} bytes`;

/** field.NotSupported: a value outside an enum. */
export function unsupported(path: string, value: unknown, supported: readonly string[]): string {
  const values = supported.map((v) => JSON.stringify(v)).join(", ");
  return `${path}: Unsupported value: ${JSON.stringify(value)}: supported values: ${values}`;
}

/** An enum field: `value` must be one of `supported` (absent counts as "" unless allowed). */
export function checkEnum(path: string, value: unknown, supported: readonly string[]): string[] {
  if (typeof value === "string" && supported.includes(value)) return [];
  if (value === undefined || value === null || value === "") return [required(path)];
  return [unsupported(path, value, supported)];
}

const dns1123Label = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const dns1123Subdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const labelHelp =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', " +
  "and must start and end with an alphanumeric character (e.g. 'my-name', or '123-abc')";
const subdomainHelp =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', " +
  "and must start and end with an alphanumeric character (e.g. 'example.com')";

/** IsDNS1123Label: at most 63 characters. */
export function dnsLabel(path: string, value: string): string[] {
  if (value.length > 63) return [invalid(path, value, "must be no more than 63 characters")];
  return dns1123Label.test(value) ? [] : [invalid(path, value, labelHelp)];
}

/** IsDNS1123Subdomain: at most 253 characters. */
export function dnsSubdomain(path: string, value: string): string[] {
  if (value.length > 253) return [invalid(path, value, "must be no more than 253 characters")];
  return dns1123Subdomain.test(value) ? [] : [invalid(path, value, subdomainHelp)];
}

const qualifiedNamePart = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;

/** IsQualifiedName: `[prefix/]name`, a DNS subdomain prefix and a name of at most 63. */
export function qualifiedName(path: string, value: string): string[] {
  const parts = value.split("/");
  const name = parts.length === 2 ? (parts[1] ?? "") : (parts[0] ?? "");
  if (parts.length > 2 || (parts.length === 2 && parts[0] === ""))
    return [
      invalid(
        path,
        value,
        "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character, with an optional DNS subdomain prefix and '/'",
      ),
    ];
  if (parts.length === 2 && dnsSubdomain(path, parts[0] ?? "").length > 0)
    return [invalid(path, value, "prefix part must be a lowercase RFC 1123 subdomain")];
  if (name.length === 0) return [invalid(path, value, "name part must be non-empty")];
  if (name.length > 63)
    return [invalid(path, value, "name part must be no more than 63 characters")];
  if (!qualifiedNamePart.test(name))
    return [
      invalid(
        path,
        value,
        "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
      ),
    ];
  return [];
}

/** IsValidLabelValue: empty, or at most 63 of the qualified name's characters. */
export function labelValue(path: string, value: string): string[] {
  if (value.length > 63) return [invalid(path, value, "must be no more than 63 characters")];
  if (value === "" || qualifiedNamePart.test(value)) return [];
  return [
    invalid(
      path,
      value,
      "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
    ),
  ];
}

/** IsValidPortName (IANA_SVC_NAME): at most 15, lowercase alphanumerics and '-', a letter. */
export function portName(path: string, value: string): string[] {
  const errors: string[] = [];
  if (value.length > 15) errors.push(invalid(path, value, "must be no more than 15 characters"));
  if (!/^[-a-z0-9]+$/.test(value))
    errors.push(
      invalid(
        path,
        value,
        "must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)",
      ),
    );
  if (value.includes("--"))
    errors.push(invalid(path, value, "must not contain consecutive hyphens"));
  if (value.startsWith("-") || value.endsWith("-"))
    errors.push(invalid(path, value, "must not begin or end with a hyphen"));
  if (!/[a-z]/.test(value))
    errors.push(invalid(path, value, "must contain at least one letter (a-z)"));
  return errors;
}

/** IsValidPortNum: 1 to 65535. */
export function portNumber(path: string, value: unknown): string[] {
  if (Number.isInteger(value) && (value as number) >= 1 && (value as number) <= 65535) return [];
  return [invalid(path, value, "must be between 1 and 65535, inclusive")];
}
