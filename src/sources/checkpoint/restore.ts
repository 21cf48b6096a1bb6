// Wiring of checkpoints around the api source, in the kubelet's order:
//   await restoreCheckpoints(checkpoints, podConfig.channel("api"));   // RESTORE, once
//   new ApiSource({ channel: checkpointingChannel(podConfig.channel("api"), checkpoints), ... }).start();
// The restore must come first, or the checkpoint would override the source of truth.
import { ApiserverSource, type SourceChannel } from "../../core/types.js";
import type { PodCheckpointManager } from "./checkpoint.js";

/**
 * Sends the checkpointed pods once as RESTORE on the api channel. Sent even when there are
 * none, as the kubelet does: the storage passes an empty RESTORE on as nothing.
 */
export async function restoreCheckpoints(
  checkpoints: PodCheckpointManager,
  channel: SourceChannel,
): Promise<void> {
  const pods = await checkpoints.load();
  await channel.send({ op: "RESTORE", source: ApiserverSource, pods });
}

/** The api channel, keeping the checkpoint directory in step with every SET sent through it. */
export function checkpointingChannel(
  channel: SourceChannel,
  checkpoints: PodCheckpointManager,
): SourceChannel {
  return {
    async send(update) {
      if (update.op !== "SET") return channel.send(update);
      // sync() serialises the pods before it returns: the files are written from those bytes.
      const written = checkpoints.sync(update.pods);
      try {
        await channel.send(update);
      } finally {
        // Even when the send fails: a write left unawaited would, if it failed, be an unhandled
        // rejection, which ends the process.
        await written;
      }
    },
  };
}
