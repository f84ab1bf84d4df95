// The image transformation core of the content API's images door. The route parses with
// parseImageParams (BadQuery when not ok), serves the original when hasImageTransform is false, else
// caches transformImage's result under the asset's content hash + imageCacheKey, and maps ImageError
// with its errorId and status.
export {
  type BadImageQuery,
  type Fit,
  type Focus,
  hasImageTransform,
  IMAGE_TRANSFORM_VERSION,
  imageCacheKey,
  type ImageParams,
  MAX_DIMENSION,
  MAX_OUTPUT_PIXELS,
  normalizeImageParams,
  type OutputFormat,
  type ParsedImageParams,
  parseImageParams,
  type Rgb,
} from "./params.ts";
export {
  CONTENT_TYPES,
  MAX_INPUT_DIMENSION,
  MAX_INPUT_PIXELS,
  type SniffedFormat,
  type SniffedImage,
  sniffImage,
} from "../../../shared/images/sniff.ts";
export { assertDecodable, type DecodeLimits, ImageError, type ImageErrorReason } from "./errors.ts";
export { DEFAULT_QUALITY, preloadCodecs } from "./codecs.ts";
export {
  defaultOutputFormat,
  type GeometryPlan,
  planGeometry,
  transformImage,
  type TransformResult,
} from "./transform.ts";
