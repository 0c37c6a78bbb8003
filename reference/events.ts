// Outgoing traffic: webhook deliveries for events (recorded as delivery logs) and the emails and
// SMS the user flows send. Deliveries run in the background so a slow endpoint never slows a
// sign-in; `settled()` lets tests and shutdown wait for them.
import { nowSeconds, type Core, type WebhookRequest, type WebhookSender } from "./core.js";
import { OutboundRefused, outboundRequest, type OutboundPolicy } from "./outbound.js";

/** The most of an endpoint's answer the service reads; the rest is never buffered. */
const ANSWER_READ_LIMIT = 64 * 1024;

/** Event names of the webhooks, as the service sends them. */
export const EVENTS = ["user.signup", "user.created", "user.login", "user.deleted", "user.access_revoked", "user.access_enabled"] as const;
export type EventName = (typeof EVENTS)[number];

const LOGGED_RESPONSE_LIMIT = 2048;

export class Events {
  private readonly inFlight = new Set<Promise<void>>();

  constructor(private readonly core: Core) {}

  /** Delivers `data` to every enabled webhook of `eventName`, in the background. */
  emit(eventName: EventName, data: Record<string, unknown>): void {
    const delivery = this.deliverAll(eventName, data).catch(() => undefined);
    this.inFlight.add(delivery);
    void delivery.finally(() => this.inFlight.delete(delivery));
  }

  async settled(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
  }

  private async deliverAll(eventName: EventName, data: Record<string, unknown>): Promise<void> {
    const webhooks = await this.core.storage.webhooks.list({ enabled: true, event_name: eventName });
    for (const webhook of webhooks) {
      const body = JSON.stringify({ id: this.core.newId(), event_name: eventName, event_description: webhook.event_description, created_at: nowSeconds(this.core), data });
      const answer = await this.send({ url: webhook.endpoint, headers: { "content-type": "application/json", ...webhook.headers }, body });
      const now = nowSeconds(this.core);
      // The request body is logged, never the configured headers: they often carry credentials.
      await this.core.storage.webhookLogs.put({
        id: this.core.newId(),
        webhook_id: webhook.id,
        http_status: answer.status,
        response: answer.body.slice(0, LOGGED_RESPONSE_LIMIT),
        request: body,
        created_at: now,
        updated_at: now,
      });
    }
  }

  /** One request; a failure to reach the endpoint is answered as status null with the reason. */
  async send(request: WebhookRequest): Promise<{ status: number | null; body: string }> {
    try {
      return await this.core.webhookSender(request);
    } catch (error) {
      const reason =
        error instanceof OutboundRefused
          ? error.reason
          : ((error as { cause?: { code?: string }; code?: string; name?: string }).cause?.code ?? (error as { code?: string }).code ?? (error as Error).name ?? "error");
      return { status: null, body: `delivery failed: ${reason}` };
    }
  }
}

/** The default sender: a POST with a 5 second timeout, to public addresses only (outbound.ts), reading at most 64 KiB of the answer. */
export function webhookPoster(policy: OutboundPolicy): WebhookSender {
  return async (request) => {
    const answer = await outboundRequest(request.url, { method: "POST", headers: request.headers, body: request.body, timeoutMs: 5000, maxBytes: ANSWER_READ_LIMIT }, policy);
    return { status: answer.status, body: answer.body };
  };
}

/** Sends an email or SMS for a user flow, with the subject of its email template if one exists. */
export async function notify(core: Core, message: { channel: "email" | "sms"; to: string; purpose: string; secret: string; subject: string }): Promise<void> {
  const template = await core.storage.emailTemplates.find({ event_name: message.purpose });
  await core.sendMessage({ ...message, subject: template?.subject ?? message.subject, sentAt: nowSeconds(core) });
}
