// The image tag as the kubelet's parsers.ParseImageName reads it (distribution's reference
// grammar after ParseNormalizedNamed): what SetDefaults_Container's imagePullPolicy depends on.

const alphanumeric = "[a-z0-9]+";
const separator = "(?:[._]|__|[-]+)";
const pathComponent = `${alphanumeric}(?:${separator}${alphanumeric})*`;
const domainComponent = "(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])";
const host = `(?:${domainComponent}(?:\\.${domainComponent})*|\\[[a-fA-F0-9:]+\\])`;
const domainAndPort = `${host}(?::[0-9]+)?`;
const name = `(?:${domainAndPort}/)?${pathComponent}(?:/${pathComponent})*`;
const tag = "[\\w][\\w.-]{0,127}";
const digest = "[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}";
const reference = new RegExp(`^(${name})(?::(${tag}))?(?:@(${digest}))?$`);
const hexIdentifier = /^[a-f0-9]{64}$/;
/** distribution's NameTotalLengthMax. */
const nameMaxLength = 255;

/**
 * The tag of `image`: "latest" when it names neither a tag nor a digest, "" for a digest alone
 * or for a reference that does not parse (the kubelet ignores the error and defaults
 * IfNotPresent).
 */
export function imageTag(image: string): string {
  if (hexIdentifier.test(image)) return "";
  const match = reference.exec(image);
  if (!match || (match[1] ?? "").length > nameMaxLength) return "";
  const [, , tagged, digested] = match;
  if (tagged) return tagged;
  return digested ? "" : "latest";
}
