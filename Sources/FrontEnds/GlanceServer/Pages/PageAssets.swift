/// The pages' stylesheet and script, compiled into the binary and served under `/assets/` with a
/// version in the URL (a hash of their text), so browsers keep them until Glance changes them.
///
/// The grid works without the script: it only adds the preview's keys, a tile for an image that
/// cannot load, and live updates.
struct PageAssets: Sendable {
    /// One served file.
    struct Asset: Sendable {
        let text: String
        let contentType: String
        /// A hash of `text` (hex), the `?v=` of its URL.
        let version: String

        init(text: String, contentType: String) {
            self.text = text
            self.contentType = contentType
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in text.utf8 {
                hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
            }
            version = String(hash, radix: 16)
        }
    }

    /// The URLs a page links, by name (what the `head` template reads).
    struct Links: Sendable {
        let stylesheet: String
        let script: String
    }

    let stylesheet = Asset(text: PageAssets.css, contentType: "text/css; charset=utf-8")
    let script = Asset(text: PageAssets.javascript, contentType: "text/javascript; charset=utf-8")

    /// The asset at `/assets/NAME`, if there is one.
    func asset(named name: Substring) -> Asset? {
        switch name {
        case "glance.css": stylesheet
        case "glance.js": script
        default: nil
        }
    }

    /// The versioned URLs of the assets.
    var links: Links { links(under: "") }

    /// The versioned URLs of the assets of a site served under `basePath` (`""`, or `/glance`).
    func links(under basePath: String) -> Links {
        Links(
            stylesheet: basePath + "/assets/glance.css?v=\(stylesheet.version)",
            script: basePath + "/assets/glance.js?v=\(script.version)")
    }

    static let css = """
        :root {
          --page: #f7f7f5; --ink: #1d1d1f; --muted: #6b6b70; --line: #d9d9de; --tile: #ebebef;
          --accent: #0a5ad4; --failed: #b3261e;
          font-family: system-ui, "DejaVu Sans", sans-serif; color: var(--ink); background: var(--page);
        }
        @media (prefers-color-scheme: dark) {
          :root {
            --page: #17171a; --ink: #ececf0; --muted: #a0a0a8; --line: #34343a; --tile: #26262b;
            --accent: #7fb0ff; --failed: #ff8a80;
          }
        }
        * { box-sizing: border-box; }
        body { margin: 0; }
        a { color: var(--accent); }
        .bar { display: flex; flex-wrap: wrap; align-items: baseline; gap: 0.3rem 1rem; padding: 0.8rem 1rem;
          border-bottom: 1px solid var(--line); }
        .bar h1 { font-size: 1.2rem; margin: 0; overflow-wrap: anywhere; }
        .counts, .meta, .state { color: var(--muted); font-size: 0.85rem; margin: 0; }
        .notice { width: 100%; margin: 0; color: var(--failed); }
        .filters { display: flex; flex-wrap: wrap; gap: 0.5rem 1rem; padding: 0.6rem 1rem; font-size: 0.9rem;
          align-items: center; }
        .filters input[type=search] { width: 14rem; max-width: 100%; }
        main { padding: 0.5rem 1rem 2rem; }
        .grid { list-style: none; margin: 0; padding: 0; display: grid; gap: 1rem;
          grid-template-columns: repeat(auto-fill, minmax(9.5rem, 1fr)); }
        @media (min-width: 2000px) { .grid { grid-template-columns: repeat(auto-fill, minmax(15rem, 1fr)); } }
        .item { display: flex; flex-direction: column; gap: 0.2rem; min-width: 0; }
        .item .open { text-decoration: none; color: inherit; display: flex; flex-direction: column; gap: 0.3rem; }
        .tile { display: flex; align-items: center; justify-content: center; aspect-ratio: 1; border-radius: 6px;
          overflow: hidden; background: var(--tile); }
        .tile { position: relative; }
        .tile img { width: 100%; height: 100%; object-fit: contain; display: block; }
        .tile canvas.placeholder { position: absolute; inset: 0; margin: auto; max-width: 100%; max-height: 100%; }
        .no-thumbnail { padding: 0.6rem; font-size: 0.8rem; color: var(--muted); text-align: center;
          overflow-wrap: anywhere; }
        .state-failed .no-thumbnail, .state-failed .state { color: var(--failed); }
        .name { font-size: 0.9rem; overflow-wrap: anywhere; }
        .meta time { white-space: nowrap; }
        .item .open:focus-visible .tile, .item .open:hover .tile { outline: 2px solid var(--accent); }
        .pages, .step { display: flex; justify-content: space-between; gap: 1rem; padding: 1rem 0; }
        .end { color: var(--muted); }
        .preview { max-width: 1100px; margin: 0 auto; }
        .large { margin: 0; display: flex; justify-content: center; }
        .large img { max-width: 100%; height: auto; max-height: 80vh; width: auto; object-fit: contain; }
        .page-count { position: sticky; top: 0; margin: 0; padding: 0.4rem 0; background: var(--page); }
        .hint { color: var(--muted); font-size: 0.85rem; }
        .player video { max-width: 100%; height: auto; max-height: 80vh; background: #000; }
        audio { display: block; width: 100%; max-width: 1024px; margin: .5rem auto; }
        .frame-strip { display: grid; grid-template-columns: repeat(auto-fill, minmax(160px, 1fr)); gap: .5rem; margin: .5rem 0; }
        .frame-strip img { width: 100%; height: auto; background: #000; }
        .page-stack { display: flex; flex-direction: column; align-items: center; gap: 1rem; }
        .page-stack img { width: 100%; max-width: 1024px; height: auto; background: #fff; box-shadow: 0 1px 4px #0003; }
        .page-caption { margin: 0 0 -0.6rem; font-weight: 600; }
        .text-view pre { white-space: pre-wrap; overflow-wrap: anywhere; font: 0.9rem/1.5 ui-monospace, "DejaVu Sans Mono", monospace;
          background: var(--tile); padding: 1rem; border-radius: 6px; max-width: 80ch; margin: 0 auto; }
        .text-meta { color: var(--muted); font-size: 0.85rem; }
        .large[data-original] img { cursor: zoom-in; }
        .large.zoomed { display: block; overflow: auto; max-height: 90vh; }
        .large.zoomed img { max-width: none; max-height: none; cursor: zoom-out; }
        .attributes { display: grid; grid-template-columns: max-content 1fr; gap: 0.2rem 1rem; font-size: 0.9rem; }
        .attributes dt { color: var(--muted); }
        .attributes dd { margin: 0; overflow-wrap: anywhere; }
        .containers { line-height: 2; }
        .sign-out { margin: 0 0 0 auto; font-size: 0.85rem; color: var(--muted); }
        .sign-in { max-width: 22rem; margin: 3rem auto; display: flex; flex-direction: column; gap: 0.8rem; }
        .sign-in h2 { font-size: 1.1rem; margin: 0; }
        .sign-in label { display: flex; flex-direction: column; gap: 0.2rem; font-size: 0.9rem; }
        .sign-in .error { color: var(--failed); margin: 0; }
        """

    static let javascript = """
        // Glance's pages: keys on the preview, a note for an image that cannot load, live updates.
        "use strict";
        (function () {
          const body = document.body;

          // The preview: left and right step through the grid's order, Esc goes back to it.
          if (body.classList.contains("preview-page")) {
            document.addEventListener("keydown", (event) => {
              if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
              if (event.target.closest && event.target.closest("input, select, textarea")) return;
              const id = { ArrowLeft: "previous", ArrowRight: "next", Escape: "up" }[event.key];
              const link = id && document.getElementById(id);
              if (link) {
                event.preventDefault();
                window.location.assign(link.href);
                return;
              }
              // j and k: the next and previous page of a PDF; z: an image at its own size.
              if (event.key === "j" || event.key === "k") {
                const current = Number(document.getElementById("page-number")?.textContent || "1");
                if (event.key === "j" && current >= document.querySelectorAll(".page-stack img").length) addPages();
                const pages = [...document.querySelectorAll(".page-stack img")];
                const target = pages[Math.min(pages.length, Math.max(1, current + (event.key === "j" ? 1 : -1))) - 1];
                if (target) {
                  event.preventDefault();
                  target.scrollIntoView({ block: "start" });
                  showPage(Number(target.dataset.page));
                }
              } else if (event.key === "z") {
                zoom();
              }
            });
          }

          // A PDF's pages: "page N of M" follows the page at the top of the window.
          const showPage = (number) => {
            const label = document.getElementById("page-number");
            if (label) label.textContent = String(number);
          };
          const stack = document.getElementById("page-stack");
          let pageObserver = null;
          if (stack && window.IntersectionObserver) {
            const visible = new Set();
            pageObserver = new IntersectionObserver((entries) => {
              for (const entry of entries) {
                const number = Number(entry.target.dataset.page);
                if (entry.isIntersecting) visible.add(number); else visible.delete(number);
              }
              if (visible.size > 0) showPage(Math.min(...visible));
            }, { rootMargin: "0px 0px -60% 0px" });
            for (const page of stack.querySelectorAll("img")) pageObserver.observe(page);
          }

          // A long PDF: the HTML holds its first pages, and data-boxes the boxes of the rest (runs
          // of "width,height,count"); they are added a batch at a time as the reader nears the
          // end of the stack, with the URLs of data-source and data-large ("{page}": the number).
          // Returns whether any was added.
          const addPages = (() => {
            if (!stack || !stack.dataset.more) return () => false;
            const runs = stack.dataset.boxes.split(";").map((run) => run.split(",").map(Number));
            const batch = Number(stack.dataset.batch) || 50;
            const url = (template, number) => template.split("{page}").join(String(number));
            let next = Number(stack.dataset.more);
            let run = 0;
            let left = runs.length > 0 ? runs[0][2] : 0;
            return () => {
              let added = 0;
              while (added < batch && run < runs.length) {
                if (left <= 0) {
                  run += 1;
                  left = run < runs.length ? runs[run][2] : 0;
                  continue;
                }
                const image = document.createElement("img");
                const small = url(stack.dataset.source, next);
                image.loading = "lazy";
                image.className = "page";
                image.id = `page-${next}`;
                image.dataset.page = String(next);
                image.width = runs[run][0];
                image.height = runs[run][1];
                image.alt = `Page ${next} of ${stack.dataset.name}`;
                image.sizes = "(min-width: 1100px) 1024px, 100vw";
                image.srcset = `${small} 1024w, ${url(stack.dataset.large, next)} 2048w`;
                image.src = small;
                stack.append(image);
                if (pageObserver) pageObserver.observe(image);
                next += 1;
                left -= 1;
                added += 1;
              }
              return added > 0;
            };
          })();
          if (stack && stack.dataset.more) {
            if (window.IntersectionObserver) {
              // Three screens ahead of the last page there is, the next batch.
              const nearEnd = new IntersectionObserver((entries) => {
                if (!entries.some((entry) => entry.isIntersecting)) return;
                nearEnd.disconnect();
                if (addPages()) nearEnd.observe(stack.lastElementChild);
              }, { rootMargin: "0px 0px 300% 0px" });
              nearEnd.observe(stack.lastElementChild);
            } else {
              while (addPages());
            }
          }

          // An image: a click or z shows the original at its own size, and again goes back.
          const zoom = () => {
            const figure = document.querySelector(".large[data-original]");
            const image = figure && figure.querySelector("img");
            if (!image) return;
            if (!figure.classList.contains("zoomed")) {
              image.dataset.fitted = image.currentSrc || image.src;
              image.removeAttribute("srcset");
              image.src = figure.dataset.original;
              figure.classList.add("zoomed");
            } else {
              image.src = image.dataset.fitted;
              figure.classList.remove("zoomed");
            }
          };
          document.addEventListener("click", (event) => {
            if (event.target.closest && event.target.closest(".large[data-original] img")) zoom();
          });

          // An image that cannot load says so instead of showing as broken.
          // Placeholders: until a tile's image arrives, its ThumbHash drawn small and stretched
          // (a blurred picture of it) over the tile's average colour.
          const drawPlaceholders = (root) => {
            for (const image of root.querySelectorAll("img[data-thumbhash]")) {
              if (image.complete) continue;
              const canvas = placeholder(
                image.dataset.thumbhash, Number(image.getAttribute("width")), Number(image.getAttribute("height")));
              if (!canvas) continue;
              image.before(canvas);
              const remove = () => canvas.remove();
              image.addEventListener("load", remove, { once: true });
              image.addEventListener("error", remove, { once: true });
            }
          };

          // A canvas of at most 32 pixels a side with the picture of a ThumbHash (base64), in the
          // aspect of the image it stands for; null for a hash that cannot be read.
          const placeholder = (text, width, height) => {
            let hash;
            try { hash = Uint8Array.from(atob(text), (c) => c.charCodeAt(0)); } catch { return null; }
            if (hash.length < 5) return null;
            const header24 = hash[0] | (hash[1] << 8) | (hash[2] << 16);
            const header16 = hash[3] | (hash[4] << 8);
            const hasAlpha = (header24 >> 23) & 1;
            const landscape = (header16 >> 15) & 1;
            const longest = hasAlpha ? 5 : 7;
            const lx = Math.max(3, landscape ? longest : header16 & 7);
            const ly = Math.max(3, landscape ? header16 & 7 : longest);
            const dc = {
              l: (header24 & 63) / 63, p: ((header24 >> 6) & 63) / 31.5 - 1,
              q: ((header24 >> 12) & 63) / 31.5 - 1, a: hasAlpha ? (hash[5] & 15) / 15 : 1,
            };
            const scales = {
              l: ((header24 >> 18) & 31) / 31, p: ((header16 >> 3) & 63) / 63,
              q: ((header16 >> 9) & 63) / 63, a: hasAlpha ? (hash[5] >> 4) / 15 : 0,
            };
            // The coefficients, four bits each, low half of each byte first.
            let index = 0;
            const start = hasAlpha ? 6 : 5;
            const coefficients = (nx, ny, scale) => {
              const values = [];
              for (let cy = 0; cy < ny; cy++) {
                for (let cx = cy ? 0 : 1; cx * ny < nx * (ny - cy); cx++, index++) {
                  const byte = hash[start + (index >> 1)] || 0;
                  values.push((((byte >> ((index & 1) * 4)) & 15) / 7.5 - 1) * scale);
                }
              }
              return values;
            };
            const channels = [["l", lx, ly], ["p", 3, 3], ["q", 3, 3]].concat(hasAlpha ? [["a", 5, 5]] : [])
              .map(([name, nx, ny]) => ({ name, nx, ny, ac: coefficients(nx, ny, scales[name]) }));
            const ratio = width > 0 && height > 0 ? width / height : lx / ly;
            const w = Math.max(1, Math.round(ratio >= 1 ? 32 : 32 * ratio));
            const h = Math.max(1, Math.round(ratio >= 1 ? 32 / ratio : 32));
            const canvas = document.createElement("canvas");
            canvas.width = w;
            canvas.height = h;
            canvas.className = "placeholder";
            // Laid out as the image will be in its square tile: the longer side fills it.
            canvas.style.width = ratio >= 1 ? "100%" : `${100 * ratio}%`;
            canvas.style.height = ratio >= 1 ? `${100 / ratio}%` : "100%";
            const context = canvas.getContext("2d");
            if (!context) return null;
            const pixels = context.createImageData(w, h);
            // The cosines of every column and row, computed once (7 is the most any channel uses).
            const table = (size) => Array.from({ length: size }, (_, at) =>
              Array.from({ length: 7 }, (_, frequency) => Math.cos(Math.PI / size * (at + 0.5) * frequency)));
            const columns = table(w);
            const rows = table(h);
            for (let y = 0; y < h; y++) {
              for (let x = 0; x < w; x++) {
                const value = { ...dc };
                for (const channel of channels) {
                  let j = 0;
                  for (let cy = 0; cy < channel.ny; cy++) {
                    const fy = rows[y][cy] * 2;
                    for (let cx = cy ? 0 : 1; cx * channel.ny < channel.nx * (channel.ny - cy); cx++, j++) {
                      value[channel.name] += channel.ac[j] * columns[x][cx] * fy;
                    }
                  }
                }
                const blue = value.l - (2 / 3) * value.p;
                const red = (3 * value.l - blue + value.q) / 2;
                const green = red - value.q;
                const at = (y * w + x) * 4;
                pixels.data[at] = Math.max(0, Math.min(255, Math.round(255 * red)));
                pixels.data[at + 1] = Math.max(0, Math.min(255, Math.round(255 * green)));
                pixels.data[at + 2] = Math.max(0, Math.min(255, Math.round(255 * blue)));
                pixels.data[at + 3] = Math.max(0, Math.min(255, Math.round(255 * value.a)));
              }
            }
            context.putImageData(pixels, 0, 0);
            return canvas;
          };
          drawPlaceholders(document);
          body.addEventListener("glance:updated", (event) => drawPlaceholders(event.target));

          document.addEventListener("error", (event) => {
            const image = event.target;
            if (!(image instanceof HTMLImageElement)) return;
            const note = document.createElement(image.id === "preview-image" ? "p" : "span");
            note.className = "no-thumbnail";
            note.textContent = "No thumbnail";
            image.replaceWith(note);
          }, true);

          // Live updates: when the server says a document changed, fetch this page again and
          // swap in its grid (or preview) and counts, keeping the scroll position.
          const events = body.dataset.events;
          if (!events || !window.EventSource) return;
          let pending = null;
          const refresh = async () => {
            pending = null;
            const response = await fetch(window.location.href, { headers: { Accept: "text/html" } });
            if (response.status === 404 && body.classList.contains("preview-page")) {
              if (!document.getElementById("gone")) {
                const note = document.createElement("p");
                note.id = "gone";
                note.className = "notice";
                note.textContent = "This document has been removed or renamed.";
                document.querySelector(".bar").append(note);
              }
              return;
            }
            if (!response.ok) return;
            const page = new DOMParser().parseFromString(await response.text(), "text/html");
            for (const id of ["grid", "counts", "preview"]) {
              const fresh = page.getElementById(id);
              const current = document.getElementById(id);
              if (fresh && current) {
                const imported = document.importNode(fresh, true);
                current.replaceWith(imported);
                imported.dispatchEvent(new Event("glance:updated", { bubbles: true }));
              }
            }
            body.dataset.updates = String(Number(body.dataset.updates || "0") + 1);
          };
          // The stream is closed when the page is left: a page kept in the browser's
          // back/forward cache must not hold one of the few connections a browser allows per
          // server. Coming back, it opens again and catches up once.
          let source = null;
          const connect = () => {
            source = new EventSource(events);
            source.addEventListener("change", () => {
              if (pending === null) pending = setTimeout(refresh, 200);
            });
            source.addEventListener("open", () => { body.dataset.live = "yes"; });
          };
          connect();
          window.addEventListener("pagehide", () => {
            if (source) source.close();
            source = null;
            body.dataset.live = "no";
          });
          window.addEventListener("pageshow", (event) => {
            if (!event.persisted) return;
            connect();
            refresh();
          });
        })();
        """
}
