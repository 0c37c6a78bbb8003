// Admin: webhooks and their delivery logs, email templates and audit logs.
import type { Webhook } from "../../generated/types.js";
import { alreadyExists, applyChanges, mustGet, nowSeconds, paginate, refused } from "../core.js";
import type { Deps, Operations } from "../deps.js";

export function webhookOperations({ core, events }: Deps): Operations<
  | "addWebhook"
  | "updateWebhook"
  | "deleteWebhook"
  | "getWebhook"
  | "webhooks"
  | "webhookLogs"
  | "testEndpoint"
  | "addEmailTemplate"
  | "updateEmailTemplate"
  | "deleteEmailTemplate"
  | "emailTemplates"
  | "auditLogs"
> {
  const { storage } = core;
  const templateFor = (eventName: string) => storage.emailTemplates.find((t) => t.event_name === eventName);

  return {
    async addWebhook(input) {
      const now = nowSeconds(core);
      const webhook: Webhook = {
        id: core.newId(),
        event_name: input.event_name,
        event_description: input.event_description ?? null,
        endpoint: input.endpoint,
        enabled: input.enabled,
        headers: input.headers ?? {},
        created_at: now,
        updated_at: now,
      };
      await storage.webhooks.put(webhook);
      return webhook;
    },

    async updateWebhook(input) {
      const webhook = await mustGet(storage.webhooks, "webhook", input.id);
      const next = applyChanges(webhook, { event_name: input.event_name, event_description: input.event_description, endpoint: input.endpoint, enabled: input.enabled, headers: input.headers });
      next.updated_at = nowSeconds(core);
      await storage.webhooks.put(next);
      return next;
    },

    async deleteWebhook(input) {
      await mustGet(storage.webhooks, "webhook", input.id);
      await storage.webhooks.delete(input.id);
      await storage.webhookLogs.deleteWhere((log) => log.webhook_id === input.id);
      return { message: `webhook ${input.id} deleted` };
    },

    async getWebhook(input) {
      return mustGet(storage.webhooks, "webhook", input.id);
    },

    async webhooks(input) {
      const page = paginate(await storage.webhooks.list(), input.pagination);
      return { pagination: page.pagination, webhooks: page.items };
    },

    async webhookLogs(input) {
      const logs = await storage.webhookLogs.list((log) => input.webhook_id == null || log.webhook_id === input.webhook_id);
      const page = paginate(logs.reverse(), input.pagination);
      return { pagination: page.pagination, webhook_logs: page.items };
    },

    async testEndpoint(input) {
      const body = JSON.stringify({
        id: core.newId(),
        event_name: input.event_name,
        event_description: input.event_description ?? null,
        created_at: nowSeconds(core),
        test: true,
        data: { user: { id: "test-user", email: "test@example.com" } },
      });
      const answer = await events.send({ url: input.endpoint, headers: { "content-type": "application/json", ...input.headers }, body });
      if (answer.status === null) throw refused(`the endpoint could not be reached (${answer.body.replace(/^delivery failed: /, "")})`);
      return { http_status: answer.status, response: answer.body.slice(0, 2048) };
    },

    async addEmailTemplate(input) {
      if (await templateFor(input.event_name)) throw alreadyExists("an email template for this event already exists");
      const now = nowSeconds(core);
      const template = { id: core.newId(), event_name: input.event_name, subject: input.subject, template: input.template, design: input.design ?? null, created_at: now, updated_at: now };
      await storage.emailTemplates.put(template);
      return template;
    },

    async updateEmailTemplate(input) {
      const template = await mustGet(storage.emailTemplates, "email template", input.id);
      if (input.event_name && input.event_name !== template.event_name && (await templateFor(input.event_name))) {
        throw alreadyExists("an email template for this event already exists");
      }
      const next = applyChanges(template, { event_name: input.event_name, subject: input.subject, template: input.template, design: input.design });
      next.updated_at = nowSeconds(core);
      await storage.emailTemplates.put(next);
      return next;
    },

    async deleteEmailTemplate(input) {
      await mustGet(storage.emailTemplates, "email template", input.id);
      await storage.emailTemplates.delete(input.id);
      return { message: `email template ${input.id} deleted` };
    },

    async emailTemplates(input) {
      const page = paginate(await storage.emailTemplates.list(), input.pagination);
      return { pagination: page.pagination, email_templates: page.items };
    },

    async auditLogs(input) {
      const logs = await storage.auditLogs.list(
        (log) =>
          (input.action == null || log.action === input.action) &&
          (input.actor_id == null || log.actor_id === input.actor_id) &&
          (input.resource_type == null || log.resource_type === input.resource_type) &&
          (input.resource_id == null || log.resource_id === input.resource_id) &&
          (input.from_timestamp == null || log.created_at >= input.from_timestamp) &&
          (input.to_timestamp == null || log.created_at <= input.to_timestamp),
      );
      const page = paginate(logs.reverse(), input.pagination);
      return { pagination: page.pagination, audit_logs: page.items };
    },
  };
}
