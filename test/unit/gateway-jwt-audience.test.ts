/**
 * Issue 33: the gateway's JWT mode requires an audience — `tiller serve` refuses a JWT key without
 * TILLER_GATEWAY_JWT_AUDIENCE, and with one a token minted for another audience (or none) is refused.
 */
import { randomBytes } from 'node:crypto';
import { SignJWT } from 'jose';
import { GatewayConfigError, identitiesFromEnv } from '../../src/gateway/env';
import { IdentityVerifier } from '../../src/gateway/identity';

const secret = randomBytes(32).toString('hex');

function token(audience?: string): Promise<string> {
  const jwt = new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject('alice').setExpirationTime('5m');
  return (audience === undefined ? jwt : jwt.setAudience(audience)).sign(new TextEncoder().encode(secret));
}

test('a JWT key without TILLER_GATEWAY_JWT_AUDIENCE does not start', () => {
  expect(() => identitiesFromEnv({ TILLER_GATEWAY_JWT_SECRET: secret })).toThrow(GatewayConfigError);
  expect(() => identitiesFromEnv({ TILLER_GATEWAY_JWT_SECRET: secret })).toThrow(/TILLER_GATEWAY_JWT_AUDIENCE/);
});

test("with an audience, only tokens for it are accepted: another's and none are refused", async () => {
  const verifier = new IdentityVerifier(
    identitiesFromEnv({ TILLER_GATEWAY_JWT_SECRET: secret, TILLER_GATEWAY_JWT_AUDIENCE: 'tiller-gateway' }),
  );
  await expect(verifier.verify(await token('tiller-gateway'))).resolves.toMatchObject({ name: 'alice' });
  await expect(verifier.verify(await token('another-app'))).rejects.toMatchObject({ statusCode: 401 });
  await expect(verifier.verify(await token())).rejects.toMatchObject({ statusCode: 401 });
});
