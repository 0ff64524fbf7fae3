import { ServerConnection } from '@jupyterlab/services';

import {
  ApiError,
  CIBenchApi,
  cookieValue,
  errorMessage,
  requestHeaders,
  taskPath
} from '../api';

describe('api helpers', () => {
  it('encodes each segment of a task id but keeps the slashes', () => {
    expect(taskPath('cibench_template/pandas/wine quality')).toBe(
      'cibench_template/pandas/wine%20quality'
    );
  });

  it("surfaces the server's error message", () => {
    expect(
      errorMessage({ error: 'step 1 is not open', status: 409 }, 409)
    ).toBe('step 1 is not open');
    expect(errorMessage(null, 500)).toBe('request failed (HTTP 500)');
  });
});

describe('keepalive headers', () => {
  it('reads a cookie among others', () => {
    expect(cookieValue('a=1; _xsrf=2|ab%3D; b=3', '_xsrf')).toBe('2|ab=');
    expect(cookieValue('a=1', '_xsrf')).toBeUndefined();
  });

  it('sends the token and the XSRF cookie as ServerConnection does', () => {
    expect(requestHeaders('tok', 'x=1; _xsrf=abc')).toEqual({
      'Content-Type': 'application/json',
      Authorization: 'token tok',
      'X-XSRFToken': 'abc'
    });
    expect(requestHeaders('', '')).toEqual({
      'Content-Type': 'application/json'
    });
  });
});

describe('CIBenchApi', () => {
  function api(status: number, body: unknown) {
    const calls: { url: string; method: string; body: string }[] = [];
    const fetch = async (input: Request) => {
      const text = input.method === 'GET' ? '' : await input.text();
      calls.push({
        url: input.url.replace(/[?&]\d+$/, ''), // drop the cache buster
        method: input.method,
        body: text
      });
      return new Response(JSON.stringify(body), { status });
    };
    const settings = ServerConnection.makeSettings({
      baseUrl: 'http://localhost:8888/lab-base/',
      fetch: fetch as unknown as typeof window.fetch,
      Request: Request,
      Headers: Headers
    });
    return { client: new CIBenchApi(settings), calls };
  }

  it('GETs under cibench-lab/api', async () => {
    const { client, calls } = api(200, [{ id: 'x' }]);
    await expect(client.tasks()).resolves.toEqual([{ id: 'x' }]);
    expect(calls[0].url).toBe(
      'http://localhost:8888/lab-base/cibench-lab/api/tasks'
    );
  });

  it('asks who the user is and which classes they teach', async () => {
    const me = {
      name: 'teach',
      roles: ['participant', 'instructor'],
      classes: ['c']
    };
    const { client, calls } = api(200, me);
    await expect(client.me()).resolves.toEqual(me);
    await client.classes();
    expect(calls.map(c => c.url.split('/api/')[1])).toEqual(['me', 'classes']);
  });

  it("reads the server's settings once, and again after a failed read", async () => {
    const { client, calls } = api(200, { turn_timeout: 60 });
    await client.serverSettings();
    await client.serverSettings();
    expect(calls).toHaveLength(1);
    const failing = api(500, { error: 'down' });
    await expect(failing.client.serverSettings()).rejects.toThrow();
    await expect(failing.client.serverSettings()).rejects.toThrow();
    expect(failing.calls).toHaveLength(2);
  });

  it('POSTs JSON bodies', async () => {
    const { client, calls } = api(200, { step: 0 });
    await client.turn('abc', 0, 'k1', 'm1');
    expect(calls[0].url).toMatch(/cibench-lab\/api\/attempts\/abc\/turns$/);
    expect(calls[0].method).toBe('POST');
    expect(JSON.parse(calls[0].body)).toEqual({
      step: 0,
      kernel_id: 'k1',
      msg_id: 'm1'
    });
  });

  it("asks for a task's recordings with the id as a query value", async () => {
    const { client, calls } = api(200, []);
    await client.recordings('cibench_template/pandas/a b');
    expect(calls[0].url).toBe(
      'http://localhost:8888/lab-base/cibench-lab/api/recordings?task=cibench_template%2Fpandas%2Fa%20b'
    );
  });

  it('starts an attempt with a player and asks it for turns', async () => {
    const { client, calls } = api(200, {});
    await client.start({ task_id: 't', mode: 'e2e', player: { model: 'm' } });
    await client.propose('abc', 2);
    await client.oracle('abc', 1, 'k', 'm1');
    expect(JSON.parse(calls[0].body).player).toEqual({ model: 'm' });
    expect(calls[1].url).toMatch(/attempts\/abc\/propose$/);
    expect(JSON.parse(calls[1].body)).toEqual({ step: 2 });
    expect(calls[2].url).toMatch(/attempts\/abc\/oracle$/);
    expect(JSON.parse(calls[2].body)).toEqual({
      step: 1,
      kernel_id: 'k',
      msg_id: 'm1'
    });
  });

  it('throws an ApiError with the server message', async () => {
    const { client } = api(409, {
      error: 'attempt x is finished',
      status: 409
    });
    const err = await client.next('x', 1).catch(e => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err.message).toBe('attempt x is finished');
    expect(err.status).toBe(409);
  });

  it('posts a settle with keepalive, token and XSRF header', async () => {
    const seen: { url: string; init: RequestInit }[] = [];
    const fetch = async (url: string, init: RequestInit) => {
      seen.push({ url, init });
      return new Response('{}');
    };
    const settings = ServerConnection.makeSettings({
      baseUrl: 'http://localhost:8888/',
      token: 'tok',
      fetch: fetch as unknown as typeof window.fetch
    });
    document.cookie = '_xsrf=xs';
    new CIBenchApi(settings).keepalive('attempts/abc/next', { step: 2 });
    expect(seen).toHaveLength(1);
    expect(seen[0].url).toBe(
      'http://localhost:8888/cibench-lab/api/attempts/abc/next'
    );
    const { init } = seen[0];
    expect(init.keepalive).toBe(true);
    expect(init.method).toBe('POST');
    expect(JSON.parse(init.body as string)).toEqual({ step: 2 });
    expect(init.headers).toEqual({
      'Content-Type': 'application/json',
      Authorization: 'token tok',
      'X-XSRFToken': 'xs'
    });
  });
});
