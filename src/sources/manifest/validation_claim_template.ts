// An ephemeral volume's claim template (validation.go: validateEphemeralVolumeSource calls
// ValidatePersistentVolumeClaimTemplate: ValidateTemplateObjectMeta and
// ValidatePersistentVolumeClaimSpec, with ValidationOptionsForPersistentVolumeClaimTemplate's
// options; the same code in 1.32-1.37 but for the VolumeAttributesClass gate). From 1.34 the
// kubelet refuses any static pod with an ephemeral volume afterwards (validation_static.ts),
// so these rules decide whether a static pod is kept up to 1.33, and the message after.
import type { JsonObject } from "../json_object.js";
import {
  type BadValue,
  type ErrorList,
  forbidden,
  invalid,
  isDNS1123Subdomain,
  notSupported,
  required,
} from "./field.js";
import { isSet, ptr, str, strings } from "./validation_json.js";
import {
  annotationsOf,
  nameIsDNSLabel,
  nameIsDNSSubdomain,
  validateAnnotations,
  validateLabelSelector,
  validateLabels,
} from "./validation_names.js";
import type { ValidationContext } from "./validation_options.js";
import { quantityOf, validateResourceQuantityValue } from "./validation_resources.js";

/**
 * metav1.ObjectMeta's fields other than labels and annotations, in Go's order, as
 * validateFieldAllowList names them (the Go name with its first letter lowercased: UID is
 * "uID"), each with its JSON name.
 */
const disallowedMetaFields: [string, string][] = [
  ["name", "name"],
  ["generateName", "generateName"],
  ["namespace", "namespace"],
  ["selfLink", "selfLink"],
  ["uID", "uid"],
  ["resourceVersion", "resourceVersion"],
  ["generation", "generation"],
  ["creationTimestamp", "creationTimestamp"],
  ["deletionTimestamp", "deletionTimestamp"],
  ["deletionGracePeriodSeconds", "deletionGracePeriodSeconds"],
  ["ownerReferences", "ownerReferences"],
  ["finalizers", "finalizers"],
  ["managedFields", "managedFields"],
];

/**
 * Not Go's zero value, as reflect.DeepEqual with the zero value sees a field of the decoded
 * pod: an empty list or map is non-nil (set), a pointer to zero is set.
 */
function isNonZero(value: unknown): boolean {
  if (value === undefined || value === null) return false;
  if (typeof value === "string") return value !== "";
  if (typeof value === "number") return value !== 0;
  if (typeof value === "boolean") return value;
  return true;
}

/** ValidateTemplateObjectMeta. */
function validateTemplateObjectMeta(meta: JsonObject, decoded: JsonObject, path: string) {
  const errs = validateAnnotations(annotationsOf(meta), `${path}.annotations`);
  errs.push(...validateLabels(meta.labels, `${path}.labels`));
  for (const [goName, json] of disallowedMetaFields) {
    // deletionGracePeriodSeconds is a pointer: 0 is set.
    const value = decoded[json];
    const set = json === "deletionGracePeriodSeconds" ? isSet(value) : isNonZero(value);
    if (set) errs.push(forbidden(`${path}.${goName}`, "cannot be set"));
  }
  return errs;
}

const supportedAccessModes = ["ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"];
const supportedVolumeModes = ["Block", "Filesystem"];

/** A *field.Path as the bad value: JSON "{}" from 1.34; before, %#v with an address. */
const pathValue = (ctx: ValidationContext): BadValue => ({
  go: ctx.minor >= 34 ? "{}" : "field.Path{<pointer>}",
});

/** validateDataSource and validateDataSourceRef (no invalid API groups allowed). */
function validateDataSourceReference(
  ref: JsonObject,
  path: string,
  withNamespace: boolean,
): ErrorList {
  const errs: ErrorList = [];
  if (str(ref.name).length === 0) errs.push(required(`${path}.name`));
  const kind = str(ref.kind);
  if (kind.length === 0) errs.push(required(`${path}.kind`));
  const apiGroup = str(ref.apiGroup);
  if (apiGroup.length === 0 && kind !== "PersistentVolumeClaim")
    errs.push(
      invalid(path, kind, "must be 'PersistentVolumeClaim' when referencing the default apiGroup"),
    );
  if (apiGroup.length > 0)
    for (const msg of isDNS1123Subdomain(apiGroup))
      errs.push(invalid(`${path}.apiGroup`, apiGroup, msg));
  const namespace = str(ref.namespace);
  if (withNamespace && namespace.length > 0)
    for (const msg of nameIsDNSLabel(namespace, false))
      errs.push(invalid(`${path}.namespace`, namespace, msg));
  return errs;
}

/** ValidatePersistentVolumeClaimSpec. */
function validateClaimSpec(spec: JsonObject, path: string, ctx: ValidationContext): ErrorList {
  const errs: ErrorList = [];
  const modes = strings(spec.accessModes);
  if (modes.length === 0)
    errs.push(required(`${path}.accessModes`, "at least 1 access mode is required"));
  if (ptr(spec.selector))
    errs.push(
      ...validateLabelSelector(
        spec.selector,
        { AllowInvalidLabelValueInSelector: false },
        `${path}.selector`,
      ),
    );
  let readWriteOncePod = false;
  let other = false;
  for (const mode of modes) {
    if (!supportedAccessModes.includes(mode))
      errs.push(notSupported(`${path}.accessModes`, mode, supportedAccessModes));
    if (mode === "ReadWriteOncePod") readWriteOncePod = true;
    else if (supportedAccessModes.includes(mode)) other = true;
  }
  if (readWriteOncePod && other)
    errs.push(
      forbidden(`${path}.accessModes`, "may not use ReadWriteOncePod with other access modes"),
    );
  const storagePath = `${path}.resources[storage]`;
  const requests = ptr(ptr(spec.resources)?.requests);
  if (!requests || !isSet(requests.storage)) errs.push(required(storagePath));
  else {
    const storage = quantityOf(requests.storage);
    if (storage.sign() <= 0)
      errs.push(invalid(storagePath, storage.toString(), "must be greater than zero"));
    else errs.push(...validateResourceQuantityValue("storage", storage, storagePath, ctx));
  }
  const className = str(spec.storageClassName);
  if (className.length > 0)
    for (const msg of nameIsDNSSubdomain(className, false))
      errs.push(invalid(`${path}.storageClassName`, className, msg));
  if (isSet(spec.volumeMode) && !supportedVolumeModes.includes(str(spec.volumeMode)))
    errs.push(notSupported(`${path}.volumeMode`, str(spec.volumeMode), supportedVolumeModes));
  const dataSource = ptr(spec.dataSource);
  const dataSourceRef = ptr(spec.dataSourceRef);
  if (dataSource)
    errs.push(...validateDataSourceReference(dataSource, `${path}.dataSource`, false));
  if (dataSourceRef)
    errs.push(...validateDataSourceReference(dataSourceRef, `${path}.dataSourceRef`, true));
  if (dataSourceRef && str(dataSourceRef.namespace).length > 0) {
    if (dataSource)
      errs.push(
        invalid(
          path,
          pathValue(ctx),
          "may not be specified when dataSourceRef.namespace is specified",
        ),
      );
  } else if (dataSource && dataSourceRef) {
    // isDataSourceEqualDataSourceRef: the apiGroup pointers compared by DeepEqual.
    const sameGroup =
      isSet(dataSource.apiGroup) === isSet(dataSourceRef.apiGroup) &&
      str(dataSource.apiGroup) === str(dataSourceRef.apiGroup);
    if (
      !sameGroup ||
      str(dataSource.kind) !== str(dataSourceRef.kind) ||
      str(dataSource.name) !== str(dataSourceRef.name)
    )
      errs.push(invalid(path, pathValue(ctx), "must match dataSourceRef"));
  }
  // VolumeAttributesClass: off by default up to 1.33.
  const attributesClass = str(spec.volumeAttributesClassName);
  if (ctx.minor >= 34 && attributesClass.length > 0)
    for (const msg of nameIsDNSSubdomain(attributesClass, false))
      errs.push(invalid(`${path}.volumeAttributesClassName`, attributesClass, msg));
  return errs;
}

/**
 * ValidatePersistentVolumeClaimTemplate. `decodedMeta` is the template's metadata as decoded
 * (an empty list is set there, the wire form drops it).
 */
export function validateClaimTemplate(
  template: JsonObject,
  decodedMeta: JsonObject,
  path: string,
  ctx: ValidationContext,
): ErrorList {
  const errs = validateTemplateObjectMeta(
    ptr(template.metadata) ?? {},
    decodedMeta,
    `${path}.metadata`,
  );
  errs.push(...validateClaimSpec(ptr(template.spec) ?? {}, `${path}.spec`, ctx));
  return errs;
}
