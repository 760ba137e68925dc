import { CaptureTag, type Context } from 'liquidjs';
import { ChargingEmitter } from './charging-emitter';

/**
 * liquidjs's `capture`, with its text collected by a {@link ChargingEmitter}: liquidjs renders a capture
 * into a fresh uncharged buffer, which a loop could grow without bound.
 */
export class ChargedCaptureTag extends CaptureTag {
  override *render(ctx: Context): Generator<unknown, void, string> {
    const emitter = new ChargingEmitter(ctx.memoryLimit);
    yield this.liquid.renderer.renderTemplates(this.templates, ctx, emitter);
    ctx.bottom()[this.variable] = emitter.buffer;
  }
}
