import { MAX_INPUT_DIMENSION, MAX_INPUT_PIXELS, type SniffedImage } from "../../../shared/images/sniff.ts";
// The one error the image core throws. The route maps it to the content envelope with `errorId` and
// `status` (the ids are the content API's own; see functions/content/envelope.ts).

export type ImageErrorReason =
  /** The source's header claims more pixels than may be decoded (see MAX_INPUT_PIXELS / MAX_INPUT_DIMENSION). */
  | "too_large"
  /** Not a PNG, JPEG, GIF or WebP (or an animated WebP), so it cannot be transformed. */
  | "unsupported_format"
  /** The header looked right but the decoder refused the bytes (truncated or corrupt file). */
  | "undecodable"
  /** The image codecs could not be loaded on this platform (a deployment fault, not the client's). */
  | "codec_unavailable";

const MAPPING: Record<ImageErrorReason, { errorId: "ValidationFailed" | "ServerError"; status: number }> = {
  too_large: { errorId: "ValidationFailed", status: 422 },
  unsupported_format: { errorId: "ValidationFailed", status: 422 },
  undecodable: { errorId: "ValidationFailed", status: 422 },
  codec_unavailable: { errorId: "ServerError", status: 500 },
};

export class ImageError extends Error {
  /** Suggested content API error id: ValidationFailed (422) for a source that cannot be transformed. */
  readonly errorId: "ValidationFailed" | "ServerError";
  readonly status: number;
  constructor(
    readonly reason: ImageErrorReason,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = "ImageError";
    this.errorId = MAPPING[reason].errorId;
    this.status = MAPPING[reason].status;
    this.details = { reason, ...details };
  }
}

export interface DecodeLimits {
  /** Longest side (default MAX_INPUT_DIMENSION). */
  maxDimension?: number;
  /** Most pixels (default MAX_INPUT_PIXELS). */
  maxPixels?: number;
}

/** Throws ImageError `too_large` when decoding the sniffed source could exhaust memory. */
export function assertDecodable(info: SniffedImage, limits: DecodeLimits = {}): void {
  const { width, height } = info;
  const maxDimension = limits.maxDimension ?? MAX_INPUT_DIMENSION;
  const maxPixels = limits.maxPixels ?? MAX_INPUT_PIXELS;
  if (width > maxDimension || height > maxDimension || width * height > maxPixels) {
    const megapixels = Math.round(maxPixels / 100_000) / 10;
    throw new ImageError(
      "too_large",
      `The image is ${width}×${height} pixels, too large to transform (at most ${maxDimension} pixels a side ` +
        `and ${megapixels} megapixels); request it without parameters for the original.`,
      { width, height, maxDimension, maxPixels },
    );
  }
}
