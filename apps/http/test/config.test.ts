import { loadConfig } from '../src/config/load-config';

/** The variables a black-box run found accepted although wrong; each refusal names its variable. */
describe('configuration', () => {
  const load = (env: Record<string, string>) => loadConfig({ SVC_STORE: 'memory', ...env });
  const refuses = (variable: string, value: string): void => {
    expect(() => load({ [variable]: value })).toThrow(new RegExp(`^${variable}: `));
  };

  it.each([['999.1.1.1'], ['not_a_host'], ['1.2.3'], ['host.123'], ['-bad.example'], ['a..b'], ['[::1]'], ['http://localhost']])('refuses SVC_HOST=%s', (value) => {
    refuses('SVC_HOST', value);
  });

  it.each([['127.0.0.1'], ['0.0.0.0'], ['::'], ['::1'], ['localhost'], ['vault-1.internal.example']])('listens on SVC_HOST=%s', (value) => {
    expect(load({ SVC_HOST: value }).host).toBe(value);
  });

  it('takes only smtp:// and smtps:// URLs for SVC_SMTP_URL, and never repeats the value (it may hold a password)', () => {
    for (const value of ['http://x', 'ftp://smtp.example.com', 'smtp://', 'not a url']) refuses('SVC_SMTP_URL', value);
    expect(() => load({ SVC_SMTP_URL: 'http://user:hunter2@x' })).toThrow(expect.objectContaining({ message: expect.not.stringContaining('hunter2') }));
    expect(load({ SVC_SMTP_URL: 'smtps://user:pass@smtp.example.com:465' }).smtpUrl).toBe('smtps://user:pass@smtp.example.com:465');
    expect(load({ SVC_SMTP_URL: 'smtp://localhost:1025' }).smtpUrl).toBe('smtp://localhost:1025');
  });

  it('sweeps every 1s to 24h: 0 and sub-second intervals would spin, longer ones overflow the timer', () => {
    for (const value of ['0', '1ms', '999ms', '25h']) refuses('SVC_SWEEP_INTERVAL', value);
    expect(load({}).sweepIntervalMs).toBe(60_000);
    expect(load({ SVC_SWEEP_INTERVAL: '1s' }).sweepIntervalMs).toBe(1000);
    expect(load({ SVC_SWEEP_INTERVAL: '24h' }).sweepIntervalMs).toBe(86_400_000);
  });

  it('bounds the waits that arm a timer (the drain, the proxy) at 1h: longer ones overflow and fire at once', () => {
    for (const value of ['61m', '2h', '30d']) refuses('SVC_SHUTDOWN_TIMEOUT', value);
    for (const value of ['0', '61m', '30d']) refuses('SVC_PROXY_TIMEOUT', value);
    expect(load({ SVC_SHUTDOWN_TIMEOUT: '0' }).shutdownTimeoutMs).toBe(0);
    expect(load({ SVC_SHUTDOWN_TIMEOUT: '1h' }).shutdownTimeoutMs).toBe(3_600_000);
    expect(load({ SVC_PROXY_TIMEOUT: '1h' }).proxyTimeoutMs).toBe(3_600_000);
    expect(load({}).proxyTimeoutMs).toBe(25_000);
  });

  it('keeps audit events from 1s to 36500d, as the README says', () => {
    for (const value of ['0', '500ms', '36501d']) refuses('SVC_LOG_RETENTION', value);
    expect(load({ SVC_LOG_RETENTION: '1s' }).logRetentionMs).toBe(1000);
    expect(load({ SVC_LOG_RETENTION: '36500d' }).logRetentionMs).toBe(36_500 * 86_400_000);
  });

  it('takes an absolute http(s) URL without credentials, query or fragment as SVC_PUBLIC_URL, the base of invitation links', () => {
    for (const value of ['javascript:alert(1)', 'ftp://x', 'vault.example.com', 'https://user:pw@vault.example.com', 'https://vault.example.com/?a=1', 'https://vault.example.com/#top', 'https://vault.example.com?']) {
      refuses('SVC_PUBLIC_URL', value);
    }
    expect(load({ SVC_PUBLIC_URL: 'https://vault.example.com/svc/' }).publicUrl).toBe('https://vault.example.com/svc');
    expect(load({ SVC_HOST: '::1', SVC_PORT: '8081' }).publicUrl).toBe('http://[::1]:8081');
  });

  it('takes an address, or a name and an address, as SVC_MAIL_FROM', () => {
    for (const value of ['notanemail', 'svc <notanemail>', 'a@b.example, c@d.example', 'svc <a@b.example> x', 'a\r\nBcc: x@y.example <a@b.example>']) refuses('SVC_MAIL_FROM', value);
    expect(load({}).mailFrom).toBe('svc <no-reply@localhost>');
    for (const value of ['no-reply@vault.example', 'Acme Vault <no-reply@vault.example>', '"Acme, Inc." <no-reply@vault.example>']) {
      expect(load({ SVC_MAIL_FROM: value }).mailFrom).toBe(value);
    }
  });
});
