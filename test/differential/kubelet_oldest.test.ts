// The differential sample against the oldest claimed kubelet minor (sample.ts).
import { OldestKubeletMinor } from "../../src/core/version.js";
import { differentialSample } from "./sample.js";

differentialSample(OldestKubeletMinor);
