// A browser of the merchant dashboard over inject: it keeps its cookies, reads each form's CSRF
// token and nonce from the page, and signs in as a dashboard user the operator created.
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { TestGateway } from './harness.ts';

export interface DashboardLogin {
  email: string;
  password: string;
}

let users = 0;

/** A new dashboard user of the merchant, created through the operator API. */
export async function createDashboardUser(
  t: TestGateway,
  clientId: string,
  email = `user${++users}-${Date.now()}@shop.example`,
): Promise<DashboardLogin> {
  const res = await t.admin('POST', `/admin/v1/merchants/${clientId}/users`, { email });
  if (res.statusCode !== 201) throw new Error(`user create failed: ${res.statusCode} ${res.body}`);
  return { email, password: res.json().password };
}

/** The value of a hidden field (or any input) named `name` in a page. */
export const fieldOf = (body: string, name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(body)?.[1];

/** The text of a page's main part, tags dropped and entities read, for comparing messages. */
export function mainText(body: string): string {
  const main = body.slice(body.indexOf('<main'), body.indexOf('</main>'));
  return main
    .replace(/<[^>]+>/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim();
}

export class DashboardBrowser {
  readonly cookies = new Map<string, string>();
  /** The browser's Accept-Language header, when it sends one. */
  acceptLanguage: string | undefined;

  constructor(
    readonly app: FastifyInstance,
    /** The browser's address (the throttles count per address). */
    readonly remoteAddress = '127.0.0.1',
  ) {}

  private keep(res: LightMyRequestResponse): LightMyRequestResponse {
    const set = res.headers['set-cookie'];
    for (const c of set === undefined ? [] : Array.isArray(set) ? set : [String(set)]) {
      const [pair, ...attrs] = c.split(';');
      const [name, value] = [pair!.slice(0, pair!.indexOf('=')), pair!.slice(pair!.indexOf('=') + 1)];
      if (value === '' || attrs.some((a) => /^\s*Max-Age=0$/i.test(a))) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return res;
  }

  get cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  private get sent(): Record<string, string> {
    return {
      cookie: this.cookieHeader,
      ...(this.acceptLanguage === undefined ? {} : { 'accept-language': this.acceptLanguage }),
    };
  }

  async get(url: string): Promise<LightMyRequestResponse> {
    return this.keep(
      await this.app.inject({ method: 'GET', url, remoteAddress: this.remoteAddress, headers: this.sent }),
    );
  }

  /** Posts a form as a browser does (repeated fields for arrays). */
  async post(url: string, form: Record<string, string | string[] | undefined>): Promise<LightMyRequestResponse> {
    const body = new URLSearchParams();
    for (const [k, v] of Object.entries(form))
      for (const x of v === undefined ? [] : Array.isArray(v) ? v : [v]) body.append(k, x);
    return this.keep(
      await this.app.inject({
        method: 'POST',
        url,
        remoteAddress: this.remoteAddress,
        headers: { ...this.sent, 'content-type': 'application/x-www-form-urlencoded' },
        payload: body.toString(),
      }),
    );
  }

  /** The CSRF token of a page's forms (every page of a session carries the same one). */
  async csrf(url = '/dashboard/payments'): Promise<string> {
    return fieldOf((await this.get(url)).body, 'csrf')!;
  }

  /** Posts a form of a signed-in page with the session's CSRF token. */
  async submit(
    url: string,
    form: Record<string, string | string[] | undefined> = {},
    from = '/dashboard/payments',
  ): Promise<LightMyRequestResponse> {
    return this.post(url, { csrf: await this.csrf(from), ...form });
  }

  /** The sign-in form, filled in and sent: the answer (303 to the dashboard when it worked). */
  async signIn(login: DashboardLogin, lang = 'en'): Promise<LightMyRequestResponse> {
    const page = await this.get(`/dashboard/sign-in?lang=${lang}`);
    return this.post('/dashboard/sign-in', {
      csrf: fieldOf(page.body, 'csrf'),
      email: login.email,
      password: login.password,
    });
  }

  static async signedIn(t: TestGateway, login: DashboardLogin, remoteAddress?: string): Promise<DashboardBrowser> {
    const b = new DashboardBrowser(t.app, remoteAddress);
    const res = await b.signIn(login);
    if (res.statusCode !== 303)
      throw new Error(`sign-in failed: ${res.statusCode} ${mainText(res.body).slice(0, 200)}`);
    return b;
  }
}
