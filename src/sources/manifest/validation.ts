// ValidatePodCreate (pkg/apis/core/validation/validation.go, 1.32) for a static pod, after the
// API and static pod defaults: the object meta here, the spec in validation_spec.ts. Field
// errors use the apiserver's wording ("spec.containers[0].name: Required value").
import type { Pod } from "../../core/types.js";
import { isObject, type JsonObject } from "../json_object.js";
import { dnsLabel, dnsSubdomain, labelValue, qualifiedName, required, tooLong } from "./field.js";
import { validatePodSpec } from "./validation_spec.js";

/** apimachinery's TotalAnnotationSizeLimitB: 256 KiB over every key and value. */
const TotalAnnotationSizeLimit = 256 * 1024;

/** ValidateLabels: qualified-name keys, label values. */
function validateLabels(labels: unknown, path: string): string[] {
  if (!isObject(labels)) return [];
  const errors: string[] = [];
  for (const [key, value] of Object.entries(labels)) {
    errors.push(...qualifiedName(path, key));
    errors.push(...labelValue(path, String(value)));
  }
  return errors;
}

/** ValidateAnnotations: qualified-name keys (checked lowercased), total size at most 256 KiB. */
function validateAnnotations(annotations: unknown, path: string): string[] {
  if (!isObject(annotations)) return [];
  const errors: string[] = [];
  let size = 0;
  for (const [key, value] of Object.entries(annotations)) {
    errors.push(...qualifiedName(path, key.toLowerCase()));
    size += Buffer.byteLength(key) + Buffer.byteLength(String(value));
  }
  if (size > TotalAnnotationSizeLimit) errors.push(tooLong(path, TotalAnnotationSizeLimit));
  return errors;
}

/** Validates a pod after the defaults; returns field errors, empty when valid. */
export function validatePod(pod: Pod): string[] {
  const errors: string[] = [];
  const { name, namespace, labels, annotations } = pod.metadata;
  if (!name) errors.push(required("metadata.name"));
  else errors.push(...dnsSubdomain("metadata.name", name));
  if (!namespace) errors.push(required("metadata.namespace"));
  else errors.push(...dnsLabel("metadata.namespace", namespace));
  errors.push(...validateLabels(labels, "metadata.labels"));
  errors.push(...validateAnnotations(annotations, "metadata.annotations"));
  if (!isObject(pod.spec)) errors.push(required("spec"));
  else errors.push(...validatePodSpec(pod.spec as JsonObject));
  return errors;
}
