// A browser stand-in for the sign-in tests: follows nothing by itself, keeps cookies per host,
// posts forms as a page would, over the test CA's TLS.
import { type Agent, fetch as undiciFetch } from "undici";

/** A browser stand-in: follows nothing by itself, keeps cookies per host, posts forms as a page would. */
export class FormBrowser {
  constructor(private readonly agent?: Agent) {}

  readonly cookies = new Map<string, string>();
  async request(url: string, init: { method?: string; form?: Record<string, string>; origin?: string } = {}): Promise<{ status: number; location: string | null; body: string; setCookies: string[] }> {
    const headers: Record<string, string> = {};
    if (this.cookies.size > 0) headers.cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; ");
    if (init.form) headers["content-type"] = "application/x-www-form-urlencoded";
    if (init.origin) headers.origin = init.origin;
    const response = await undiciFetch(url, {
      method: init.method ?? "GET",
      headers,
      body: init.form ? new URLSearchParams(init.form).toString() : undefined,
      redirect: "manual",
      ...(this.agent ? { dispatcher: this.agent } : {}),
    });
    const setCookies = response.headers.getSetCookie();
    for (const line of setCookies) {
      const [pair] = line.split(";");
      const index = pair!.indexOf("=");
      const name = pair!.slice(0, index);
      const value = pair!.slice(index + 1);
      if (/max-age=0/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const location = response.headers.get("location");
    return { status: response.status, location: location === null ? null : new URL(location, url).toString(), body: await response.text(), setCookies };
  }
}

/** The value of a form's hidden field in a page. */
export const field = (html: string, name: string) =>
  new RegExp(`name="${name}" value="([^"]*)"`)
    .exec(html)?.[1]
    ?.replace(/&amp;/g, "&")
    .replace(/&quot;/g, '"') ?? "";
