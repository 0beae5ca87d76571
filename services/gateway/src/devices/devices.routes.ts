import {
  AppError,
  changeDeviceRegionRoute,
  changeDeviceRegionRpc,
  configByLinkRpc,
  configLinkRoute,
  createDeviceRoute,
  createDeviceRpc,
  deviceConfigRoute,
  deviceConfigRpc,
  deviceOverviewRoute,
  deviceOverviewRpc,
  devicePeerInfoRoute,
  devicePeerInfoRpc,
  issueConfigLinksRpc,
  listDevicesRoute,
  listDevicesRpc,
  removeDeviceRoute,
  removeDeviceRpc,
  requestKeyRoute,
  requestKeyRpc,
  setDevicePrivacyRoute,
  setDevicePrivacyRpc,
  setKeyRotationRoute,
  setKeyRotationRpc,
  updateDeviceRoute,
  updateDeviceRpc,
} from '@qw/contracts';
import type { HttpApp, RpcClient } from '@qw/platform';
import { addKillSwitch, configQrPng } from '@qw/wireguard';
import { addRoute } from '../http/add-route.ts';
import { forwardedAnswers } from '../http/forwarded.ts';
import { sendSignInPage, wantsPage } from '../http/sign-in-page.ts';
import { isUuid } from '../http/ids.ts';

/** A malformed id names no device of anyone's: the same 404 as someone else's device. */
function deviceId(raw: string): string {
  if (!isUuid(raw)) throw new AppError('not_found', 'Device not found.');
  return raw.toLowerCase();
}

/** A config link's token: absent means nobody is signed in; a malformed one is no link of ours. */
function linkToken(raw: string | undefined): string {
  if (!raw) throw new AppError('not_signed_in', 'Not signed in');
  if (!/^[\w-]{20,100}$/.test(raw))
    throw new AppError('link_expired', 'This download link is not valid. Open the config again from your devices.');
  return raw;
}

/** Personal devices: each route is one request to provisioning, which decides who may do what. */
export function registerDeviceRoutes(app: HttpApp, deps: { rpc: RpcClient }): void {
  const { rpc } = deps;

  const list = forwardedAnswers(listDevicesRoute, listDevicesRpc, rpc);
  addRoute(app, listDevicesRoute, async (request, reply) =>
    list(reply.header('cache-control', 'no-store'), {}, request.caller),
  );

  const overview = forwardedAnswers(deviceOverviewRoute, deviceOverviewRpc, rpc);
  addRoute(app, deviceOverviewRoute, async (request, reply) =>
    overview(reply.header('cache-control', 'no-store'), {}, request.caller),
  );

  addRoute(app, createDeviceRoute, async (request, reply) =>
    reply.status(201).send(await rpc.request(createDeviceRpc, request.body, request.caller)),
  );

  addRoute(app, updateDeviceRoute, async (request) =>
    rpc.request(updateDeviceRpc, { device_id: deviceId(request.params.id), ...request.body }, request.caller),
  );

  addRoute(app, removeDeviceRoute, async (request, reply) => {
    await rpc.request(removeDeviceRpc, { device_id: deviceId(request.params.id) }, request.caller);
    return reply.status(204).send();
  });

  addRoute(app, requestKeyRoute, async (request) =>
    rpc.request(requestKeyRpc, { device_id: deviceId(request.params.id), ...(request.body ?? {}) }, request.caller),
  );

  addRoute(app, setKeyRotationRoute, async (request) =>
    rpc.request(
      setKeyRotationRpc,
      { device_id: deviceId(request.params.id), every_days: request.body.every_days },
      request.caller,
    ),
  );

  addRoute(app, changeDeviceRegionRoute, async (request) =>
    rpc.request(changeDeviceRegionRpc, { device_id: deviceId(request.params.id), ...request.body }, request.caller),
  );

  addRoute(app, setDevicePrivacyRoute, async (request) =>
    rpc.request(setDevicePrivacyRpc, { device_id: deviceId(request.params.id), ...request.body }, request.caller),
  );

  addRoute(app, devicePeerInfoRoute, async (request) =>
    rpc.request(devicePeerInfoRpc, { device_id: deviceId(request.params.id) }, request.caller),
  );

  addRoute(app, configLinkRoute, async (request) => {
    const id = deviceId(request.params.id);
    const links = await rpc.request(issueConfigLinksRpc, { device_id: id }, request.caller);
    return {
      url: `/api/device/${id}/config?token=${links.conf_token}`,
      qr_url: `/api/device/${id}/config?format=qr&token=${links.qr_token}`,
      expires_in: links.expires_in,
    };
  });

  addRoute(app, deviceConfigRoute, async (request, reply) => {
    const id = deviceId(request.params.id);
    const format = request.query.format ?? 'conf';
    // With an access token, the owner's config; without one, a link's single use (which is no
    // signed token, so it proves nothing anywhere else).
    let answer: { file_name: string; config: string };
    try {
      answer = request.caller.userId
        ? await rpc.request(deviceConfigRpc, { device_id: id }, request.caller)
        : await rpc.request(configByLinkRpc, { device_id: id, token: linkToken(request.query.token), format });
    } catch (error) {
      // A config link opened in a new tab that no longer works (or no link at all): a page that
      // says so and offers to sign in, for a browser; JSON for the web app.
      if (!request.caller.userId && wantsPage(request) && error instanceof AppError)
        return sendSignInPage(reply, error, { next: '/app', title: 'This config link does not work' });
      throw error;
    }
    const { file_name, config } = answer;
    reply
      .header('cache-control', 'no-store')
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer');
    if (format === 'qr') {
      const png = await configQrPng(config);
      return reply
        .type('image/png')
        .header('content-disposition', `inline; filename="${file_name.replace(/\.conf$/, '')}-qr.png"`)
        .send(png);
    }
    // Linux's kill switch (issue #25) is wg-quick hooks in the file: an option of the download only.
    return reply
      .type('text/plain; charset=utf-8')
      .header('content-disposition', `attachment; filename="${file_name}"`)
      .send(request.query.kill_switch === true ? addKillSwitch(config) : config);
  });
}
