// The differential sample against kubelet 1.32, the oldest minor claimed (sample.ts).
import { differentialSample } from "./sample.js";

differentialSample("1.32");
