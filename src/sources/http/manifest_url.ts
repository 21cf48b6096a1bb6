// --manifest-url / staticPodURL: checked once for the command line and the http source alike.
// The URL may hold secrets, in user:password or in its query (presigned and SAS URLs carry
// their signature there): no message quotes it; what messages show is redactManifestURL's.

export class ManifestURLError extends Error {
  override readonly name = "ManifestURLError";
}

export interface ManifestURL {
  /** The URL without user:password: what is requested. */
  url: string;
  /** The URL's user:password, decoded: Go's http client sends them as basic auth. */
  credentials: { user: string; password: string } | undefined;
}

const Redacted = "<redacted>";

/**
 * The URL as it may be shown: user:password and every query value replaced, the fragment
 * dropped; a query part without "=" is replaced whole (it may be a bare token). An unparseable
 * URL is not shown at all.
 */
export function redactManifestURL(raw: string | URL): string {
  if (typeof raw === "string" && !URL.canParse(raw)) return Redacted;
  const url = new URL(raw);
  const userinfo = url.username || url.password ? `${Redacted}@` : "";
  const query = url.search
    .slice(1)
    .split("&")
    .filter((part) => part !== "")
    .map((part) =>
      part.includes("=") ? `${part.slice(0, part.indexOf("="))}=${Redacted}` : Redacted,
    );
  const search = query.length > 0 ? `?${query.join("&")}` : "";
  return `${url.protocol}//${userinfo}${url.host}${url.pathname}${search}`;
}

/** Throws ManifestURLError for anything but an http or https URL with well-formed user info. */
export function parseManifestURL(raw: string): ManifestURL {
  if (!URL.canParse(raw))
    throw new ManifestURLError(
      "the manifest URL is not a valid URL (not shown: it may hold credentials)",
    );
  const url = new URL(raw);
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new ManifestURLError(`the manifest URL must be http or https, not ${url.protocol}`);
  if (!url.username && !url.password) return { url: url.href, credentials: undefined };
  let credentials: ManifestURL["credentials"];
  try {
    credentials = {
      user: decodeURIComponent(url.username),
      password: decodeURIComponent(url.password),
    };
  } catch {
    throw new ManifestURLError(
      "the manifest URL's user:password is not valid percent-encoding (not shown)",
    );
  }
  url.username = "";
  url.password = "";
  return { url: url.href, credentials };
}
