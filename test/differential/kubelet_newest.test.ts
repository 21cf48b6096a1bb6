// The differential sample against the newest claimed kubelet minor (sample.ts).
import { NewestKubeletMinor } from "../../src/core/version.js";
import { differentialSample } from "./sample.js";

differentialSample(NewestKubeletMinor);
