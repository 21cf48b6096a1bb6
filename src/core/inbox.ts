// A small single-consumer mailbox: lets the sync loop wait on "next update", "housekeeping
// tick" and "stop" at once (the kubelet's select) without piling handlers on a pending promise.

export class Inbox<T> {
  private readonly messages: T[] = [];
  private waiter: ((message: T) => void) | null = null;

  put(message: T): void {
    const waiter = this.waiter;
    if (waiter) {
      this.waiter = null;
      waiter(message);
    } else {
      this.messages.push(message);
    }
  }

  take(): Promise<T> {
    if (this.messages.length > 0) return Promise.resolve(this.messages.shift() as T);
    return new Promise((resolve) => {
      this.waiter = resolve;
    });
  }
}
