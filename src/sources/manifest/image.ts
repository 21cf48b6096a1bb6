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
/** distribution/reference v0.6.0's RepositoryNameTotalLengthMax: of the path, domain apart. */
const pathMaxLength = 255;
/** go-digest's algorithms and their hex lengths (digest.Parse refuses any other). */
const digestHexLength: Record<string, number> = { sha256: 64, sha384: 96, sha512: 128 };

/**
 * splitDockerDomain's remote name: the path of the normalized reference ("nginx" is
 * docker.io/library/nginx, path "library/nginx").
 */
function normalizedPath(image: string): string {
  const slash = image.indexOf("/");
  if (slash < 0) return `library/${image}`;
  const first = image.slice(0, slash);
  const rest = image.slice(slash + 1);
  let domain = "docker.io";
  let remote = image;
  // The legacy Docker Hub domain first: it also contains a ".".
  if (first === "index.docker.io") remote = rest;
  else if (first === "localhost" || /[.:]/.test(first) || first.toLowerCase() !== first) {
    domain = first;
    remote = rest;
  }
  if (domain === "docker.io" && !remote.includes("/")) remote = `library/${remote}`;
  return remote;
}

/** digest.Parse: a known algorithm with exactly its length of lowercase hex. */
function isValidDigest(value: string): boolean {
  const colon = value.indexOf(":");
  const hex = value.slice(colon + 1);
  const length = digestHexLength[value.slice(0, colon)];
  return length !== undefined && hex.length === length && /^[a-f0-9]+$/.test(hex);
}

/**
 * The tag of `image`: "latest" when it names neither a tag nor a digest, "" for a digest alone
 * or for a reference ParseNormalizedNamed refuses (the kubelet ignores the error and defaults
 * IfNotPresent): a repository path over 255 characters once normalized, an unknown digest
 * algorithm or a digest of the wrong length.
 */
export function imageTag(image: string): string {
  if (hexIdentifier.test(image)) return "";
  const match = reference.exec(image);
  if (!match) return "";
  const [, name, tagged, digested] = match;
  const path = normalizedPath(name ?? "");
  if (path.length > pathMaxLength) return "";
  if (digested && !isValidDigest(digested)) return "";
  if (tagged) return tagged;
  return digested ? "" : "latest";
}
