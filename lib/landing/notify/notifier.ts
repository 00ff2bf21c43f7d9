// The drain's notifier: hears the drain's events, and for each one the policy's `notify` entries
// ask for, runs their commands (runNotifier.ts) one after another, in the background, so a slow or
// failing notifier never holds a train back. A notifier that fails is a warning event; the drain
// waits for the last one (each bounded by its timeout) before it ends.
import type { Policy } from '../../config/index.js';
import type { JobRecord, Notification, QueueStore } from '../../store/index.js';
import type { Emit, DrainEvent } from '../events.js';
import { isolationOf, type SandboxHost } from '../gates/sandbox.js';
import { notificationsOf, notifiersFor, stoppedNotification, uncertainNotification } from './notifications.js';
import { runNotifier } from './runNotifier.js';

export interface NotifierOptions {
  store: QueueStore;
  target: string;
  sandbox: SandboxHost;
  /** The policy in force now (the drain reads it again for each pass). */
  policy: () => Policy;
  /** Where a failed notifier's warning goes (the drain's events, not the notifier). */
  warn: Emit;
}

export class Notifier {
  private chain: Promise<void> = Promise.resolve();

  constructor(private readonly opts: NotifierOptions) {}

  /** Runs the notifications `event` stands for, after those already started. */
  hear(event: DrainEvent): void {
    if (!this.opts.policy().notify.length) return;
    const at = new Date().toISOString();
    const job = (id: string) => {
      try {
        return this.opts.store.readJob(id);
      } catch {
        return null; // a corrupt record is the drain's to report
      }
    };
    for (const notification of notificationsOf(event, { target: this.opts.target, at, job })) this.send(notification);
  }

  /** The drain stopped early: `stopped` notifiers hear why. */
  stopped(stopped: { why: string; message: string }): void {
    if (!this.opts.policy().notify.length) return;
    this.send(stoppedNotification(stopped, { target: this.opts.target, at: new Date().toISOString() }));
  }

  /** Jobs `land reconcile` just moved to uncertain: `uncertain` notifiers hear each one. */
  uncertain(jobs: readonly JobRecord[]): void {
    if (!this.opts.policy().notify.length) return;
    const at = new Date().toISOString();
    for (const job of jobs) this.send(uncertainNotification(job, { target: this.opts.target, at }));
  }

  /** Settles once every notifier started has ended (each bounded by its timeoutSeconds). */
  settle(): Promise<void> {
    return this.chain;
  }

  private send(notification: Notification): void {
    const policy = this.opts.policy();
    for (const entry of notifiersFor(policy.notify, notification.event)) {
      this.chain = this.chain
        .then(async () => {
          const warning = await runNotifier(entry, notification, isolationOf(this.opts.sandbox, policy.sandbox));
          if (warning) this.opts.warn({ type: 'warning', message: warning });
        })
        .catch(() => undefined); // a notifier never fails the drain, its warning included
    }
  }
}
