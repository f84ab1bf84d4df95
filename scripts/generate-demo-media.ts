// One-off generator of the demo site's media library (demo-site/media/): small pictures drawn here
// (no third-party images), in PNG, JPEG, GIF and WebP at different sizes, plus a PDF and a text file
// for the non-image asset cases. The output is committed; rerun only to change the pictures.
//   deno run -A scripts/generate-demo-media.ts
import { Frame, GIF, Image } from "imagescript";

const MEDIA = new URL("../demo-site/media/", import.meta.url);

type Rgb = [number, number, number];

function gradient(
  width: number,
  height: number,
  from: Rgb,
  to: Rgb,
  shapes: (img: Image) => void = () => {},
): Image {
  const image = new Image(width, height);
  image.fill((x, y) => {
    const t = (x / width + y / height) / 2;
    const mix = (i: number) => Math.round(from[i] + (to[i] - from[i]) * t);
    return Image.rgbaToColor(mix(0), mix(1), mix(2), 255);
  });
  shapes(image);
  return image;
}

function circles(spec: [number, number, number, Rgb][]) {
  return (image: Image) => {
    for (const [x, y, r, [cr, cg, cb]] of spec) image.drawCircle(x, y, r, Image.rgbaToColor(cr, cg, cb, 255));
  };
}

function flat(width: number, height: number, background: Rgb, bands: [number, number, Rgb][]): Image {
  const image = new Image(width, height);
  image.fill(Image.rgbaToColor(...background, 255));
  for (const [y0, y1, [r, g, b]] of bands) {
    image.drawBox(0, y0, width, y1 - y0, Image.rgbaToColor(r, g, b, 255));
  }
  return image;
}

async function write(path: string, bytes: Uint8Array) {
  const url = new URL(path, MEDIA);
  await Deno.mkdir(new URL(".", url), { recursive: true });
  await Deno.writeFile(url, bytes);
  console.log(`${path}\t${bytes.byteLength} bytes`);
}

await write(
  "photos/harbor.jpg",
  await gradient(640, 480, [30, 60, 110], [240, 180, 120], circles([[480, 120, 50, [255, 230, 150]]]))
    .encodeJPEG(60),
);
await write(
  "photos/forest.webp",
  await gradient(
    320,
    200,
    [20, 80, 40],
    [150, 200, 120],
    circles([[80, 140, 40, [30, 60, 30]], [220, 130, 50, [40, 90, 45]]]),
  )
    .encodeWEBP(60),
);
await write(
  "photos/mountain.jpg",
  await gradient(800, 533, [90, 110, 160], [230, 230, 240], circles([[600, 100, 40, [255, 255, 255]]]))
    .encodeJPEG(55),
);
await write(
  "covers/field-guide.png",
  await flat(240, 360, [46, 94, 78], [[40, 80, [240, 220, 160]], [300, 310, [240, 220, 160]]]).encode(9),
);
await write(
  "covers/night-garden.jpg",
  await gradient(240, 360, [10, 10, 40], [80, 40, 120], circles([[120, 120, 60, [230, 230, 200]]]))
    .encodeJPEG(60),
);
await write(
  "banners/spring-sale.png",
  await flat(728, 90, [250, 240, 220], [[0, 10, [220, 90, 80]], [80, 90, [220, 90, 80]]]).encode(9),
);
await write(
  "products/tee.jpg",
  await gradient(400, 400, [235, 235, 235], [200, 200, 210], circles([[200, 200, 120, [40, 70, 140]]]))
    .encodeJPEG(60),
);
await write(
  "products/mug.webp",
  await gradient(400, 300, [250, 245, 235], [220, 210, 190], circles([[200, 150, 90, [180, 60, 50]]]))
    .encodeWEBP(60),
);
await write(
  "products/poster.png",
  await flat(200, 280, [20, 30, 60], [[100, 180, [240, 180, 60]]]).encode(9),
);
await write("logo.png", await flat(128, 128, [255, 255, 255], [[32, 96, [52, 120, 200]]]).encode(9));

// a two-frame animated GIF
const frames = [[60, 140, 220], [220, 120, 60]].map(([r, g, b]) => {
  const frame = new Frame(64, 64, 400);
  frame.fill(Image.rgbaToColor(255, 255, 255, 255));
  frame.drawCircle(32, 32, 24, Image.rgbaToColor(r, g, b, 255));
  return frame;
});
await write("icons/spark.gif", await new GIF(frames).encode(80));

// a one-page PDF written by hand (object offsets computed so readers accept it)
function tinyPdf(text: string): Uint8Array {
  const content = `BT /F1 18 Tf 72 720 Td (${text}) Tj ET`;
  const objects = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
  ];
  let out = "%PDF-1.4\n";
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) out += `${String(offset).padStart(10, "0")} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return new TextEncoder().encode(out);
}
await write(
  "docs/price-list.pdf",
  tinyPdf("Sitewire demo price list: tee 25 EUR, mug 14 EUR, poster 19 EUR"),
);
await write(
  "notes/readme.txt",
  new TextEncoder().encode(
    "The demo site's media library: pictures drawn by scripts/generate-demo-media.ts.\n",
  ),
);
