// ValidatePodCreate (pkg/apis/core/validation/validation.go) for a static pod after the API
// and static pod defaults, then the kubelet's own static pod checks (validation_static.ts).
// The error text is the kubelet's: `invalid pod: [<field errors>]`, Go's %v of the
// field.ErrorList (pkg/kubelet/config/common.go).
import type { Pod } from "../../core/types.js";
import type { KubeletMinor } from "../../core/version.js";
import type { JsonObject } from "../json_object.js";
import { type ErrorList, forbidden, formatErrorList, invalid, withWording } from "./field.js";
import { decodeTolerationsAnnotation } from "./tolerations_annotation.js";
import { validateContainerOnlyForPod } from "./validation_containers.js";
import { objects, ptr, str, struct } from "./validation_json.js";
import { type Annotations, annotationsOf, validatePodObjectMeta } from "./validation_names.js";
import { type ValidationContext, validationContext } from "./validation_options.js";
import { validateTolerations } from "./validation_scheduling.js";
import {
  validateAppArmorAnnotationsAndFieldsMatchOnCreate,
  validateAppArmorPodAnnotations,
  validateSeccompAnnotationsAndFields,
  validateSeccompPodAnnotations,
} from "./validation_security.js";
import { validatePodSpec } from "./validation_spec.js";
import { staticPodReferenceError } from "./validation_static.js";

const mirrorPodAnnotationKey = "kubernetes.io/config.mirror";
const podDeletionCostKey = "controller.kubernetes.io/pod-deletion-cost";
const tolerationsAnnotationKey = "scheduler.alpha.kubernetes.io/tolerations";

/**
 * helper.GetDeletionCostFromPodAnnotations accepts the value: validFirstDigit (a "-", a lone
 * "0" or 1-9 first, so "-0" and "-007" pass and "+1" and "007" do not), then
 * strconv.ParseInt(value, 10, 32).
 */
function isValidDeletionCost(value: string): boolean {
  if (!/^(0|[1-9][0-9]*|-[0-9]+)$/.test(value)) return false;
  const n = BigInt(value);
  return n >= -2147483648n && n <= 2147483647n;
}

/** ValidateTolerationsInPodAnnotations: the annotation decoded as Go decodes it, then validated. */
function validateTolerationsInPodAnnotations(
  value: string,
  path: string,
  minor: number,
): ErrorList {
  const decoded = decodeTolerationsAnnotation(value);
  if ("error" in decoded) return [invalid(path, tolerationsAnnotationKey, decoded.error)];
  if (decoded.tolerations.length === 0) return [];
  return validateTolerations(decoded.tolerations, `${path}.${tolerationsAnnotationKey}`, minor);
}

/** ValidatePodSpecificAnnotations. */
function validatePodSpecificAnnotations(
  all: Annotations,
  spec: JsonObject,
  path: string,
  ctx: ValidationContext,
): ErrorList {
  const errs: ErrorList = [];
  const mirror = all.get(mirrorPodAnnotationKey);
  if (mirror !== undefined && str(spec.nodeName).length === 0)
    errs.push(
      invalid(
        `${path}[${mirrorPodAnnotationKey}]`,
        mirror,
        "must set spec.nodeName if mirror pod annotation is set",
      ),
    );
  const tolerations = all.get(tolerationsAnnotationKey) ?? "";
  if (tolerations !== "")
    errs.push(...validateTolerationsInPodAnnotations(tolerations, path, ctx.minor));
  if (!ctx.opts.AllowInvalidPodDeletionCost) {
    const cost = all.get(podDeletionCostKey);
    if (cost !== undefined && !isValidDeletionCost(cost))
      errs.push(invalid(`${path}[${podDeletionCostKey}]`, cost, "must be a 32bit integer"));
  }
  errs.push(...validateSeccompPodAnnotations(all, path));
  errs.push(...validateAppArmorPodAnnotations(all, spec, path));
  return errs;
}

/** ValidatePodCreate: the field errors, empty when valid. */
export function validatePodCreate(pod: Pod, ctx: ValidationContext): ErrorList {
  const meta = struct(pod.metadata);
  const spec = struct(pod.spec);
  const annotations = annotationsOf(meta);
  const errs = validatePodObjectMeta(meta, annotations, ctx.minor);
  errs.push(...validatePodSpecificAnnotations(annotations, spec, "metadata.annotations", ctx));
  const mirror = annotations.has(mirrorPodAnnotationKey);
  errs.push(...validatePodSpec(spec, str(meta.name), mirror, "spec", ctx));
  if (str(spec.serviceAccountName) === "")
    objects(spec.volumes).forEach((volume, vi) => {
      const projected = ptr(volume.projected);
      if (!projected) return;
      objects(projected.sources).forEach((source, si) => {
        if (ptr(source.serviceAccountToken))
          errs.push(
            forbidden(
              `spec.volumes[${vi}].projected.sources[${si}].serviceAccountToken`,
              "must not be specified when serviceAccountName is not set",
            ),
          );
      });
    });
  objects(spec.containers).forEach((c, i) => {
    errs.push(...validateContainerOnlyForPod(c, `spec.containers[${i}]`));
  });
  objects(spec.initContainers).forEach((c, i) => {
    errs.push(...validateContainerOnlyForPod(c, `spec.initContainers[${i}]`));
  });
  if (objects(spec.ephemeralContainers).length > 0)
    errs.push(forbidden("spec.ephemeralContainers", "cannot be set on create"));
  if (str(spec.nodeName) !== "" && objects(spec.schedulingGates).length !== 0)
    errs.push(
      forbidden("spec.nodeName", "cannot be set until all schedulingGates have been cleared"),
    );
  errs.push(...validateSeccompAnnotationsAndFields(annotations, spec, "spec"));
  errs.push(...validateAppArmorAnnotationsAndFieldsMatchOnCreate(annotations, spec, "spec"));
  return errs;
}

/**
 * What the kubelet `minor` says of a defaulted static pod: null when it keeps the pod, else
 * its error text ("invalid pod: [...]", or a static pod check's message). `decoded` is the
 * pod as decoded, before it was marshalled: where the wire form drops an empty list that Go
 * validation tells from a nil one, the rule reads it there. `listItem`: an item of a PodList.
 */
export function validateStaticPod(
  pod: Pod,
  minor: KubeletMinor,
  decoded: JsonObject = pod as unknown as JsonObject,
  listItem = false,
): string | null {
  const ctx = { ...validationContext(minor), decoded };
  const errs = withWording(ctx.minor, () => validatePodCreate(pod, ctx));
  if (errs.length > 0) return `invalid pod: ${formatErrorList(errs)}`;
  // Up to 1.33 only tryDecodeSinglePod runs the static pod checks; tryDecodePodList (a
  // manifest URL's PodList) validates its items and nothing more (common.go).
  if (listItem && ctx.minor < 34) return null;
  return staticPodReferenceError(struct(pod.spec), ctx.minor);
}
