// Content Images: the image door every asset's fields.file.url names (spec: "Images").
import { headerRef, parameterRef, readErrors, responseRef } from "../common.ts";
import type { OpenApiSection, Parameter } from "../types.ts";
import { FITS, FOCI, FORMATS } from "../enums/content.ts";

export const CONTENT_IMAGES_TAG = "Content Images";
// the values the images door accepts, from the door's own parser
export const IMAGE_FITS = [...FITS];
export const IMAGE_FOCUS = [...FOCI];
export const IMAGE_FORMATS = [...FORMATS];
export const IMAGE_PATH = "/api/media/{space}/{asset_id}/{hash}/{file}";

const query = (name: string, description: string, schema: Record<string, unknown>): Parameter => ({
  name,
  in: "query",
  description,
  schema,
});
const path = (name: string, description: string): Parameter => ({
  name,
  in: "path",
  required: true,
  description,
  schema: { type: "string" },
});

export function imageParameters(): Parameter[] {
  return [
    query("w", "Width in pixels, 1 to 4000.", { type: "integer", minimum: 1, maximum: 4000 }),
    query("h", "Height in pixels, 1 to 4000.", { type: "integer", minimum: 1, maximum: 4000 }),
    query("fit", "How to fit w and h; absent means fit within both, keeping the aspect ratio.", {
      type: "string",
      enum: IMAGE_FITS,
    }),
    query("f", "Focus area for crop, fill and thumb; `face` and `faces` behave as `center`.", {
      type: "string",
      enum: IMAGE_FOCUS,
    }),
    query("fm", "Output format; `avif` answers webp.", { type: "string", enum: IMAGE_FORMATS }),
    query("q", "Quality, 1 to 100 (jpg and webp).", { type: "integer", minimum: 1, maximum: 100 }),
    query("r", "Corner radius in pixels, or `max` for a circle or ellipse.", {
      anyOf: [{ type: "integer", minimum: 0 }, { type: "string", enum: ["max"] }],
    }),
    query("bg", "Background colour for pad and rounded corners, as `rgb:rrggbb`.", {
      type: "string",
      pattern: "^rgb:[0-9a-fA-F]{6}$",
    }),
  ];
}

const binary = { type: "string", contentMediaType: "application/octet-stream" };

export const contentImagesSection: OpenApiSection = {
  name: "content images",
  tags: [{
    name: CONTENT_IMAGES_TAG,
    group: "Content API",
    description:
      "The image door: an asset's file, resized, cropped, rounded or converted on the fly. Transforms are cached by " +
      "their parameters; answers are immutable.",
  }],
  paths() {
    const errors = readErrors();
    return {
      [IMAGE_PATH]: {
        parameters: [
          parameterRef("space"),
          path("asset_id", "The asset's id."),
          path("hash", "The file's content hash, as in the asset's fields.file.url."),
          path("file", "The file name."),
        ],
        get: {
          operationId: "getImage",
          summary: "Get an asset's file, transformed",
          description:
            "The address named by every asset's fields.file.url. Without parameters the file is answered as stored. " +
            "A parameter out of range is BadQuery; an unknown asset is NotFound.",
          tags: [CONTENT_IMAGES_TAG],
          security: [],
          parameters: [...imageParameters(), parameterRef("ifNoneMatch")],
          responses: {
            "200": {
              description: "The file (an image in the asked format when transformed).",
              headers: {
                ETag: headerRef("ETag"),
                "Cache-Control": headerRef("Cache-Control"),
                "X-Contentful-Request-Id": headerRef("X-Contentful-Request-Id"),
              },
              content: {
                "image/jpeg": { schema: { ...binary, contentMediaType: "image/jpeg" } },
                "image/png": { schema: { ...binary, contentMediaType: "image/png" } },
                "image/webp": { schema: { ...binary, contentMediaType: "image/webp" } },
                "image/gif": { schema: { ...binary, contentMediaType: "image/gif" } },
                "application/octet-stream": { schema: binary },
              },
            },
            "304": responseRef("NotModified"),
            "400": errors["400"],
            "404": errors["404"],
            "429": errors["429"],
          },
        },
      },
    };
  },
};
