// The differential sample against kubelet 1.37, the newest minor claimed (sample.ts).
import { differentialSample } from "./sample.js";

differentialSample("1.37");
