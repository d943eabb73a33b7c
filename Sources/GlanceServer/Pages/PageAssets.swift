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
        .tile img { width: 100%; height: 100%; object-fit: contain; display: block; }
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
              }
            });
          }

          // An image that cannot load says so instead of showing as broken.
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
              if (fresh && current) current.replaceWith(document.importNode(fresh, true));
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
