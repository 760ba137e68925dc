import fc from 'fast-check';
import { OutboundAllowListError, parseOutboundAllowList } from './outbound-allow-list';
import { OutboundPolicy } from './outbound-policy';

const refusedReason = (policy: OutboundPolicy, url: string) => {
  const decision = policy.checkUrl(url);
  return decision.allowed ? undefined : decision.reason;
};

describe('OutboundPolicy', () => {
  const strict = new OutboundPolicy();

  describe('URL checks', () => {
    it('accepts an https URL with a host name, leaving the address to the resolver', () => {
      const decision = strict.checkUrl('https://api.example.com/charge?x=1');
      expect(decision).toMatchObject({ allowed: true, value: { host: 'api.example.com', port: 443, allowListed: false } });
    });

    it.each([
      ['http://api.example.com/', /https/],
      ['ftp://api.example.com/', /https/],
      ['file:///etc/passwd', /https/],
      ['not a url', /absolute URL/],
      ['https://user:pass@api.example.com/', /credentials/],
      // WHATWG would read each of these as host `h`: as written, they name none (or hide it behind a backslash).
      ['https:///h', /host right after the two slashes/],
      ['https:/h/x', /host right after the two slashes/],
      ['https:h', /host right after the two slashes/],
      ['https:\\\\h/', /host right after the two slashes/],
      ['https://\\h/', /host right after the two slashes/],
      ['https://\t/internal.example', /host right after the two slashes/],
      ['https://api.example.com/a\nb', /no whitespace/],
      ['https://example.com\\@evil.com/', /no whitespace or backslash/],
    ])('refuses %s', (url, reason) => {
      expect(refusedReason(strict, url)).toMatch(reason);
    });

    it.each([
      'https://127.0.0.1/',
      'https://0x7f.1/',
      'https://2130706433/',
      'https://[::1]/',
      'https://[::ffff:127.0.0.1]/',
      'https://169.254.169.254/latest/meta-data/',
      'https://[fd00:ec2::254]/',
      'https://10.0.0.1:8443/',
      'https://0/',
    ])('refuses the IP literal of %s before any lookup', (url) => {
      expect(refusedReason(strict, url)).toMatch(/may not reach/);
    });

    it.each([
      ['https://localhost/', /local host/],
      ['https://LOCALHOST./x', /local host/],
      ['https://a.b.localhost:8443/', /local host/],
      ['https://localhost.localdomain/', /local host/],
      ['https://metadata.google.internal/computeMetadata/v1/', /metadata/],
      ['https://METADATA.GOOGLE.INTERNAL./', /metadata/],
      ['https://metadata/', /metadata/],
      ['https://instance-data.ec2.internal/', /metadata/],
      ['https://example.com:0/', /port/],
      ['https://8.8.8.8:0/', /port/],
    ])('refuses %s by its name or port, before any lookup', (url, reason) => {
      expect(refusedReason(strict, url)).toMatch(reason);
    });

    it('takes names that only look local: notlocalhost.com, localhost.example.com, metadata.example.com', () => {
      for (const url of ['https://notlocalhost.com/', 'https://localhost.example.com/', 'https://metadata.example.com/', 'https://example.com:1/']) {
        expect([url, strict.checkUrl(url).allowed]).toEqual([url, true]);
      }
    });

    it('lets SVC_OUTBOUND_ALLOW list a local name, but never port 0', () => {
      const policy = OutboundPolicy.fromAllowList('localhost:8443,*.localhost');
      expect(policy.checkUrl('https://localhost:8443/')).toMatchObject({ allowed: true, value: { allowListed: true } });
      expect(policy.checkUrl('https://api.localhost/').allowed).toBe(true);
      expect(policy.checkUrl('https://localhost/').allowed).toBe(false);
      expect(OutboundPolicy.fromAllowList('example.com').checkUrl('https://example.com:0/').allowed).toBe(false);
    });

    it('accepts a public IP literal', () => {
      expect(strict.checkUrl('https://8.8.8.8/').allowed).toBe(true);
    });
  });

  describe('resolved addresses', () => {
    const target = (policy: OutboundPolicy, url: string) => {
      const decision = policy.checkUrl(url);
      if (!decision.allowed) throw new Error(decision.reason);
      return decision.value;
    };

    it('refuses a name that resolves to a loopback or metadata address, naming the range, not the address', () => {
      const t = target(strict, 'https://rebind.example.com/');
      expect(strict.checkAddress(t, '127.0.0.1')).toEqual({ allowed: false, reason: 'points to a loopback address, which outbound requests may not reach' });
      const metadata = strict.checkAddress(t, '169.254.169.254');
      expect(metadata.allowed).toBe(false);
      expect(JSON.stringify(metadata)).not.toContain('169.254');
      expect(strict.checkAddress(t, '93.184.216.34')).toEqual({ allowed: true, value: '93.184.216.34' });
    });

    it('refuses a resolver answer that is not an IP address', () => {
      expect(strict.checkAddress(target(strict, 'https://x.example.com/'), 'example.org').allowed).toBe(false);
    });
  });

  describe('SVC_OUTBOUND_ALLOW', () => {
    const policy = OutboundPolicy.fromAllowList(' 127.0.0.1:8443 , *.corp.example, [::1]:9000, hooks.internal:80 ');

    it('lifts the address check for a listed host and port, and only that port', () => {
      expect(policy.checkUrl('https://127.0.0.1:8443/').allowed).toBe(true);
      expect(policy.checkUrl('https://0x7f.1:8443/').allowed).toBe(true);
      expect(policy.checkUrl('https://127.0.0.1:8444/').allowed).toBe(false);
      expect(policy.checkUrl('https://127.0.0.1/').allowed).toBe(false);
      expect(policy.checkUrl('https://[::1]:9000/').allowed).toBe(true);
      expect(policy.checkUrl('https://[::1]:9001/').allowed).toBe(false);
    });

    it('allows plain http only to listed destinations', () => {
      expect(policy.checkUrl('http://127.0.0.1:8443/').allowed).toBe(true);
      expect(policy.checkUrl('http://hooks.internal/').allowed).toBe(true);
      expect(policy.checkUrl('http://hooks.internal:8080/').allowed).toBe(false);
      expect(policy.checkUrl('http://example.com/').allowed).toBe(false);
    });

    it('matches a wildcard against names below the domain, at any port, not the domain itself', () => {
      for (const url of ['https://a.corp.example/', 'https://a.b.corp.example:444/', 'https://A.CORP.EXAMPLE./']) {
        const decision = policy.checkUrl(url);
        expect(decision).toMatchObject({ allowed: true, value: { allowListed: true } });
        if (decision.allowed) expect(policy.checkAddress(decision.value, '10.0.0.7').allowed).toBe(true);
      }
      expect(policy.checkUrl('https://corp.example/')).toMatchObject({ allowed: true, value: { allowListed: false } });
      expect(policy.checkUrl('https://evilcorp.example/')).toMatchObject({ allowed: true, value: { allowListed: false } });
      expect(policy.checkUrl('https://corp.example.evil.com/')).toMatchObject({ allowed: true, value: { allowListed: false } });
    });

    it.each(['*', '*.', 'http://x.com', 'host:0', 'host:65536', 'host:port', 'a b', '*.*.com', 'a*.com', '[::1', 'host:80:81'])(
      'refuses the entry %j',
      (entry) => {
        expect(() => parseOutboundAllowList(entry)).toThrow(OutboundAllowListError);
        expect(() => parseOutboundAllowList(entry)).toThrow(entry);
      },
    );

    it('treats an unset or empty setting as no exemption', () => {
      expect(parseOutboundAllowList(undefined)).toEqual([]);
      expect(parseOutboundAllowList(' , ')).toEqual([]);
    });

    it('never lets an unlisted URL reach a non-public literal, whatever the allow list', () => {
      const literal = fc.constantFrom('127.0.0.1', '10.0.0.1', '[::1]', '169.254.169.254', '[::ffff:a00:1]', '0x7f.1');
      fc.assert(
        fc.property(literal, fc.integer({ min: 1, max: 65535 }), fc.integer({ min: 1, max: 65535 }), (host, port, listed) => {
          fc.pre(port !== listed);
          const p = OutboundPolicy.fromAllowList(`127.0.0.1:${listed},[::1]:${listed},*.example.com`);
          return !p.checkUrl(`https://${host}:${port}/`).allowed;
        }),
      );
    });
  });
});
