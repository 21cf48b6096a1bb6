// What ValidatePodCreate is told, per kubelet minor. pkg/kubelet/config/common.go passes
// `validation.PodValidationOptions{}` (every option false) up to 1.34, and from 1.35
// `podutil.GetValidationOptionsFromPodSpecAndMeta(&spec, nil, &meta, nil)`, which reads the
// kubelet's default feature gates (no old pod: nothing is grandfathered). The gate defaults
// below are each minor's pkg/features/kube_features.go, for the gates validation reads.
import type { KubeletMinor } from "../../core/version.js";
import { isObject, type JsonObject } from "../json_object.js";

export interface PodValidationOptions {
  AllowInvalidPodDeletionCost: boolean;
  AllowInvalidLabelValueInSelector: boolean;
  AllowIndivisibleHugePagesValues: boolean;
  AllowInvalidTopologySpreadConstraintLabelSelector: boolean;
  AllowNonLocalProjectedTokenPath: boolean;
  AllowNamespacedSysctlsForHostNetAndHostIPC: boolean;
  ResourceIsPod: boolean;
  AllowRelaxedEnvironmentVariableValidation: boolean;
  AllowRelaxedDNSSearchValidation: boolean;
  AllowPodLifecycleSleepActionZeroValue: boolean;
  AllowOnlyRecursiveSELinuxChangePolicy: boolean;
  PodLevelResourcesEnabled: boolean;
  AllowSidecarResizePolicy: boolean;
  AllowMatchLabelKeysInPodTopologySpread: boolean;
  AllowMatchLabelKeysInPodTopologySpreadSelectorMerge: boolean;
  AllowContainerRestartPolicyRules: boolean;
  AllowRestartAllContainers: boolean;
  AllowEnvFilesValidation: boolean;
  AllowUserNamespacesHostNetworkSupport: boolean;
  AllowTaintTolerationComparisonOperators: boolean;
}

export interface ValidationContext {
  /** The kubelet minor's number: 32 for 1.32. */
  minor: number;
  opts: PodValidationOptions;
  /**
   * The pod as the typed decode left it (an empty list kept, a nil one absent), for the
   * rules that tell them apart; the validated pod when absent.
   */
  decoded?: JsonObject;
}

/**
 * The object at a validation field path ("spec.containers[1].securityContext") in the pod as
 * the typed decode left it, where a rule must tell an empty list from a nil one; undefined when
 * the context has no decoded pod or the path leads nowhere.
 */
export function decodedAt(ctx: ValidationContext, path: string): unknown {
  let at: unknown = ctx.decoded;
  for (const [, field, index] of path.matchAll(/([A-Za-z]+)(?:\[(\d+)\])?/g)) {
    at = isObject(at) ? at[field as string] : undefined;
    if (index !== undefined) at = Array.isArray(at) ? at[Number(index)] : undefined;
  }
  return at;
}

const none: PodValidationOptions = {
  AllowInvalidPodDeletionCost: false,
  AllowInvalidLabelValueInSelector: false,
  AllowIndivisibleHugePagesValues: false,
  AllowInvalidTopologySpreadConstraintLabelSelector: false,
  AllowNonLocalProjectedTokenPath: false,
  AllowNamespacedSysctlsForHostNetAndHostIPC: false,
  ResourceIsPod: false,
  AllowRelaxedEnvironmentVariableValidation: false,
  AllowRelaxedDNSSearchValidation: false,
  AllowPodLifecycleSleepActionZeroValue: false,
  AllowOnlyRecursiveSELinuxChangePolicy: false,
  PodLevelResourcesEnabled: false,
  AllowSidecarResizePolicy: false,
  AllowMatchLabelKeysInPodTopologySpread: false,
  AllowMatchLabelKeysInPodTopologySpreadSelectorMerge: false,
  AllowContainerRestartPolicyRules: false,
  AllowRestartAllContainers: false,
  AllowEnvFilesValidation: false,
  AllowUserNamespacesHostNetworkSupport: false,
  AllowTaintTolerationComparisonOperators: false,
};

/**
 * GetValidationOptionsFromPodSpecAndMeta with no old pod, from 1.35: gates that are on by
 * default in every one of 1.35-1.37 (PodDeletionCost, PodLevelResources,
 * InPlacePodVerticalScaling, MatchLabelKeysInPodTopologySpread, ContainerRestartRules,
 * EnvFiles, RelaxedEnvironmentVariableValidation) and those that differ by minor.
 */
function gatedOptions(minor: number): PodValidationOptions {
  return {
    ...none,
    AllowInvalidPodDeletionCost: false,
    PodLevelResourcesEnabled: true,
    AllowSidecarResizePolicy: true,
    AllowMatchLabelKeysInPodTopologySpread: true,
    // MatchLabelKeysInPodTopologySpreadSelectorMerge: beta and on from 1.34 to 1.37.
    AllowMatchLabelKeysInPodTopologySpreadSelectorMerge: true,
    AllowContainerRestartPolicyRules: true,
    AllowEnvFilesValidation: true,
    AllowRelaxedEnvironmentVariableValidation: true,
    // RelaxedDNSSearchValidation and PodLifecycleSleepActionAllowZero: on in 1.35 and 1.36,
    // locked on and gone from the options in 1.37 (validation no longer asks).
    AllowRelaxedDNSSearchValidation: true,
    AllowPodLifecycleSleepActionZeroValue: true,
    // RestartAllContainersOnContainerExits: beta, on, from 1.36.
    AllowRestartAllContainers: minor >= 36,
    // SELinuxMount off before 1.37: only the Recursive change policy is allowed.
    AllowOnlyRecursiveSELinuxChangePolicy: minor < 37,
  };
}

export function validationContext(kubeletMinor: KubeletMinor): ValidationContext {
  const minor = Number(kubeletMinor.slice(2));
  return { minor, opts: minor >= 35 ? gatedOptions(minor) : none };
}
