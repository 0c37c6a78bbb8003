// Admin: webhooks and their delivery logs, email templates and audit logs.
import type { Webhook } from "../../generated/types.js";
import { alreadyExists, mustGet, nowSeconds, pageOf, refused, removeRecord, saveChanges } from "../core.js";
import type { QueryOf, Where } from "../storage.js";
import type { Deps, Operations } from "../deps.js";

export function webhookOperations({
  core,
  events,
}: Deps): Operations<
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
  const templateFor = (eventName: string) => storage.emailTemplates.find({ event_name: eventName });

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
      return await saveChanges(core, storage.webhooks, "webhook", webhook, {
        event_name: input.event_name,
        event_description: input.event_description,
        endpoint: input.endpoint,
        enabled: input.enabled,
        headers: input.headers,
      });
    },

    async deleteWebhook(input) {
      await mustGet(storage.webhooks, "webhook", input.id);
      await storage.transaction(async () => {
        await storage.webhooks.delete(input.id);
        await storage.webhookLogs.deleteWhere({ webhook_id: input.id });
      });
      return { message: `webhook ${input.id} deleted` };
    },

    async getWebhook(input) {
      return mustGet(storage.webhooks, "webhook", input.id);
    },

    async webhooks(input) {
      const page = await pageOf(storage.webhooks, {}, input.pagination);
      return { pagination: page.pagination, webhooks: page.items };
    },

    async webhookLogs(input) {
      const page = await pageOf(storage.webhookLogs, input.webhook_id == null ? {} : { webhook_id: input.webhook_id }, input.pagination, { newestFirst: true });
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
      return await saveChanges(core, storage.emailTemplates, "email template", template, { event_name: input.event_name, subject: input.subject, template: input.template, design: input.design });
    },

    async deleteEmailTemplate(input) {
      return removeRecord(storage.emailTemplates, "email template", input.id);
    },

    async emailTemplates(input) {
      const page = await pageOf(storage.emailTemplates, {}, input.pagination);
      return { pagination: page.pagination, email_templates: page.items };
    },

    async auditLogs(input) {
      const where: Where<QueryOf<"auditLogs">> = {
        ...(input.action == null ? {} : { action: input.action }),
        ...(input.actor_id == null ? {} : { actor_id: input.actor_id }),
        ...(input.resource_type == null ? {} : { resource_type: input.resource_type }),
        ...(input.resource_id == null ? {} : { resource_id: input.resource_id }),
        created_at: { gte: input.from_timestamp ?? undefined, lte: input.to_timestamp ?? undefined },
      };
      const page = await pageOf(storage.auditLogs, where, input.pagination, { newestFirst: true });
      return { pagination: page.pagination, audit_logs: page.items };
    },
  };
}
