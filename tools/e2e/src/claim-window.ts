import { Client, type Notification } from 'pg';
import type { NatsConnection, Subscription } from 'nats';
import { PipelineSubjects } from '@svc/contracts';
import type { TestStack } from '@svc/system-testing';

const CHANNEL = 'svc_test_claims';
/** How long after the kill a work request may still show up (it left the registry just before it died). */
const PUBLISH_GRACE_MS = 1500;

/** One kill of the registry the moment a claim committed. */
export interface ClaimKill {
  workId: string;
  /** True when the claimed work was never published: the registry died between claim and publish. */
  inWindow: boolean;
}

/**
 * Kills the registry (SIGKILL) the moment it commits a table's claim, to hit the window between the claim
 * and the publish of the work (issue 8, item 11). A test-only trigger in the control database notifies
 * the test of every claim as it commits; the test process kills the registry on that notification, and
 * tells afterwards whether the claimed work reached NATS (the test listens to the work requests too).
 * It is a race by nature: `inWindow` says whether one kill won it.
 */
export class ClaimWindowKiller {
  private listener: Client | undefined;
  private natsConnection: NatsConnection | undefined;
  private requests: Subscription | undefined;
  private readonly published = new Set<string>();
  private armed: ((workId: string) => void) | undefined;
  /** Claims notified so far, killed at or not. */
  claimsSeen = 0;

  constructor(private readonly stack: TestStack) {}

  /** Installs the trigger (after the registry created its tables) and starts listening. */
  async start(): Promise<void> {
    const admin = new Client({ connectionString: this.stack.control.url });
    await admin.connect();
    try {
      await admin.query(`CREATE OR REPLACE FUNCTION svc_test_notify_claim() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN PERFORM pg_notify('${CHANNEL}', NEW.in_flight_work_id::text); RETURN NULL; END $$`);
      await admin.query(`CREATE OR REPLACE TRIGGER svc_test_notify_claim AFTER UPDATE OF in_flight_work_id ON table_states FOR EACH ROW
        WHEN (NEW.in_flight_work_id IS NOT NULL AND NEW.in_flight_work_id IS DISTINCT FROM OLD.in_flight_work_id)
        EXECUTE FUNCTION svc_test_notify_claim()`);
    } finally {
      await admin.end();
    }
    this.natsConnection = await this.stack.connectNats('claim-window-test');
    this.requests = this.natsConnection.subscribe(PipelineSubjects.extractRequested, {
      callback: (error, message) => {
        if (error) return;
        try {
          const { workId, group } = message.json<{ workId?: unknown; group?: unknown }>();
          // A group's message carries its members' work ids.
          const members: unknown[] = Array.isArray(group) ? group : [{ workId }];
          for (const member of members) {
            const id = typeof member === 'object' && member !== null ? (member as { workId?: unknown }).workId : undefined;
            if (typeof id === 'string') this.published.add(id);
          }
        } catch {
          // Not a work request this test can read: it cannot be the claimed one either.
        }
      },
    });
    this.listener = new Client({ connectionString: this.stack.control.url });
    await this.listener.connect();
    this.listener.on('notification', (notification: Notification) => {
      this.claimsSeen += 1;
      this.armed?.(notification.payload ?? '');
    });
    await this.listener.query(`LISTEN ${CHANNEL}`);
  }

  /** Waits for the next claim, kills the registry at once, and leaves it down (the caller starts it again). */
  async killAtNextClaim(deadlineMs = 30000): Promise<ClaimKill> {
    const registry = this.stack.registry;
    const workId = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.armed = undefined;
        reject(new Error(`no table was claimed for ${deadlineMs} ms while the workload ran: work is frozen (${this.claimsSeen} claims seen before)`));
      }, deadlineMs);
      this.armed = (claimed) => {
        // Synchronously, in the notification's callback: every millisecond lets the publish get out.
        void registry.stop('SIGKILL');
        this.armed = undefined;
        clearTimeout(timer);
        resolve(claimed);
      };
    });
    await registry.stop('SIGKILL');
    await new Promise((done) => setTimeout(done, PUBLISH_GRACE_MS));
    return { workId, inWindow: !this.published.has(workId) };
  }

  async stop(): Promise<void> {
    this.armed = undefined;
    this.requests?.unsubscribe();
    await Promise.allSettled([this.listener?.end(), this.natsConnection?.close()]);
  }
}
