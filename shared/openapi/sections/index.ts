// The document's sections, in the order their tags appear. Each API's part lives in its own file so the
// engineer building that API refines it there; a section gated by a module names it in `requires`.
import type { OpenApiSection } from "../types.ts";
import { analyticsSection } from "./analytics.ts";
import { contentBaseSection } from "./content-base.ts";
import { contentDeliverySection } from "./content-delivery.ts";
import { contentGraphqlSection } from "./content-graphql.ts";
import { contentImagesSection } from "./content-images.ts";
import { contentManagementSection } from "./content-management.ts";
import { contentSyncSection } from "./content-sync.ts";
import { formsSection } from "./forms.ts";
import { networkSection } from "./network.ts";
import { schedulingSection } from "./scheduling.ts";
import { storeSection } from "./store.ts";
import { supportSection } from "./support.ts";

export const DEFAULT_SECTIONS: readonly OpenApiSection[] = [
  contentBaseSection,
  contentDeliverySection,
  contentManagementSection,
  contentSyncSection,
  contentGraphqlSection,
  contentImagesSection,
  // groups appear in the spec's order: Content, Forms, Scheduling, Store, Support, Analytics (then Network)
  formsSection,
  schedulingSection,
  storeSection,
  supportSection,
  analyticsSection,
  networkSection,
];

/**
 * The sections of the APIs this deployment serves: the document answered at /openapi.json says what the
 * running site answers (tests/functions/content/openapi-http.test.ts holds every documented path to a
 * function the host runs). Every API of the product is served now; a section written ahead of its
 * function stays out of this list until the function exists.
 */
export const SERVED_SECTIONS: readonly OpenApiSection[] = DEFAULT_SECTIONS;
