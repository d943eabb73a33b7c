import Mustache

/// The HTML of the pages, as Mustache templates compiled into the binary (one file is enough to
/// run `glance serve`).
///
/// Every value goes in through `{{name}}`, which the template engine HTML-escapes (`<`, `>`, `&`,
/// quotes); no template uses the unescaped `{{{name}}}` form, and a test checks that. URLs are
/// percent-encoded by the page models before they get here, so escaping is the engine's alone.
enum PageTemplates {
    /// The templates by name: `grid`, `preview`, `site`, `sign-in`, and the `head` and `account`
    /// partials they share.
    static let library: MustacheLibrary = {
        var library = MustacheLibrary()
        for (name, text) in sources {
            // The templates are constants of this file: a parse error is a bug that every test
            // of the pages shows at once.
            try! library.register(text, named: name)
        }
        return library
    }()

    /// The template sources, by name (a test reads them to check that nothing is unescaped).
    static let sources: [(String, String)] = [
        ("head", head), ("account", account), ("grid", grid), ("preview", preview), ("site", site),
        ("sign-in", signIn),
    ]

    /// `<head>` and the page's top bar; every page sets `title`, `assets`, `events`.
    static let head = """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="color-scheme" content="light dark">
        <title>{{title}} · Glance</title>
        <link rel="stylesheet" href="{{assets.stylesheet}}">
        <script src="{{assets.script}}" defer></script>
        {{#prefetch}}<link rel="prefetch" href="{{.}}">{{/prefetch}}
        </head>
        """

    /// The account's name and a sign-out button, at the end of a top bar (with a session only).
    static let account = """
        {{#signOut}}<form class="sign-out" method="post" action="{{action}}"><span class="account">{{name}}</span> <button type="submit" id="sign-out">Sign out</button></form>{{/signOut}}
        """

    /// The sign-in form.
    static let signIn = """
        {{> head}}
        <body class="sign-in-page">
        <header class="bar"><h1>Glance</h1></header>
        <main>
        <form class="sign-in" method="post" action="{{action}}">
        <h2>Sign in</h2>
        {{#error}}<p class="error" id="sign-in-error" role="alert">{{error}}</p>{{/error}}
        <input type="hidden" name="next" value="{{next}}">
        <label>Name <input type="text" name="name" id="name" value="{{name}}" autocomplete="username" autocapitalize="none" required autofocus></label>
        <label>Password <input type="password" name="password" id="password" autocomplete="current-password" required></label>
        <button type="submit" id="sign-in">Sign in</button>
        </form>
        </main>
        </body>
        </html>
        """

    /// The grid of a container: filters, counts, one tile per document, pages.
    static let grid = """
        {{> head}}
        <body class="grid-page"{{#events}} data-events="{{events}}"{{/events}}>
        <header class="bar">
        {{#siteURL}}<a class="up" href="{{siteURL}}">Containers</a>{{/siteURL}}
        <h1>{{title}}</h1>
        <p class="counts" id="counts">{{range}} · {{totals}}</p>
        {{> account}}
        </header>
        <form class="filters" role="search" aria-label="Filter the documents" method="get" action="{{gridURL}}">
        <label>Name <input type="search" name="pattern" value="{{pattern}}" placeholder="part of a name, or *.pdf"></label>
        <label>Kind <select name="type">{{#kinds}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/kinds}}</select></label>
        <label>State <select name="status">{{#states}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/states}}</select></label>
        <label>Sort <select name="sort">{{#orders}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/orders}}</select></label>
        <label class="check"><input type="checkbox" name="reverse" value="1"{{#reversed}} checked{{/reversed}}> Reverse</label>
        <button type="submit">Show</button>
        </form>
        <main>
        <ul class="grid" id="grid">
        {{#items}}
        <li class="item state-{{state}}" data-path="{{path}}">
        <a class="open" href="{{previewURL}}">
        <span class="tile"{{#thumbnailURL}} style="background-color: {{colour}}"{{/thumbnailURL}}>
        {{#thumbnailURL}}<img src="{{thumbnailURL}}" srcset="{{thumbnailSourceSet}}" sizes="(min-width: 2000px) 19rem, 11rem"{{#thumbHash}} data-thumbhash="{{thumbHash}}"{{/thumbHash}} width="{{width}}" height="{{height}}" loading="lazy"{{#eager}} fetchpriority="high"{{/eager}} decoding="async" alt="">{{/thumbnailURL}}
        {{^thumbnailURL}}<span class="no-thumbnail">{{note}}</span>{{/thumbnailURL}}
        </span>
        <span class="name">{{name}}</span>
        </a>
        <span class="meta"><span class="kind">{{kind}}</span> · <span class="size">{{size}}</span> · <time datetime="{{modifiedISO}}">{{modified}}</time></span>
        <span class="state">{{stateText}}</span>
        </li>
        {{/items}}
        </ul>
        {{^items}}<p class="empty">No documents match.</p>{{/items}}
        <nav class="pages">
        {{#previousPageURL}}<a rel="prev" id="previous-page" href="{{previousPageURL}}">← Previous page</a>{{/previousPageURL}}
        {{#nextPageURL}}<a rel="next" id="next-page" href="{{nextPageURL}}">Next page →</a>{{/nextPageURL}}
        </nav>
        </main>
        </body>
        </html>
        """

    /// One document large, its attributes, previous / next in the grid's order.
    static let preview = """
        {{> head}}
        <body class="preview-page"{{#events}} data-events="{{events}}"{{/events}} data-path="{{path}}">
        <header class="bar">
        {{#gridURL}}<a class="up" id="up" href="{{gridURL}}">All documents</a>{{/gridURL}}
        <h1>{{name}}</h1>
        {{#position}}<p class="counts">{{position}}</p>{{/position}}
        {{> account}}
        </header>
        <main class="preview" id="preview">
        <nav class="step">
        {{#previousURL}}<a id="previous" rel="prev" href="{{previousURL}}" title="Previous (←)">← Previous</a>{{/previousURL}}
        {{^previousURL}}<span class="end">← Previous</span>{{/previousURL}}
        {{#nextURL}}<a id="next" rel="next" href="{{nextURL}}" title="Next (→)">Next →</a>{{/nextURL}}
        {{^nextURL}}<span class="end">Next →</span>{{/nextURL}}
        </nav>
        {{#text}}<section class="text-view" id="text-view">
        <p class="text-meta" id="text-meta">{{encoding}} · {{lines}}{{#truncated}} · {{.}}{{/truncated}}</p>
        <pre id="text">{{content}}</pre>
        </section>{{/text}}
        {{^text}}{{#stack}}<p class="page-count" id="page-count">Page <span id="page-number">1</span> of {{pageCount}} <span class="hint">(j, k: next, previous page)</span></p>
        <div class="page-stack" id="page-stack" data-count="{{pageCount}}" data-name="{{name}}"{{#morePages}} data-more="{{first}}" data-boxes="{{boxes}}" data-source="{{source}}" data-large="{{large}}" data-batch="{{batch}}"{{/morePages}}>{{#pages}}{{#caption}}<p class="page-caption">{{.}}</p>{{/caption}}<img class="page" id="{{id}}" data-page="{{number}}" src="{{source}}" srcset="{{sourceSet}}" sizes="(min-width: 1100px) 1024px, 100vw"{{^eager}} loading="lazy"{{/eager}} width="{{width}}" height="{{height}}" alt="Page {{number}} of {{name}}">{{/pages}}</div>{{/stack}}
        {{^stack}}{{#videoPlayer}}{{#media}}<figure class="large player"><video id="player" controls preload="metadata" poster="{{thumbnailURL}}" width="{{width}}" height="{{height}}"><source src="{{source}}" type="{{type}}"></video></figure>{{/media}}{{/videoPlayer}}
        {{^videoPlayer}}<figure class="large state-{{state}}"{{^media}}{{#zoomURL}} data-original="{{.}}"{{/zoomURL}}{{/media}}>
        {{#thumbnailURL}}<img id="preview-image" src="{{thumbnailURL}}"{{#imageSourceSet}} srcset="{{.}}" sizes="(min-width: 1100px) 1024px, 100vw"{{/imageSourceSet}} width="{{width}}" height="{{height}}" style="background-color: {{colour}}" alt="Thumbnail of {{name}}">{{/thumbnailURL}}
        {{^thumbnailURL}}<p class="no-thumbnail" id="reason">{{note}}</p>{{/thumbnailURL}}
        </figure>{{/videoPlayer}}
        {{#media}}{{^isVideo}}{{#source}}<audio id="player" controls preload="metadata" src="{{source}}"></audio>{{/source}}{{/isVideo}}
        {{#hasFrames}}<div class="frame-strip" id="frame-strip">{{#frames}}<img class="frame" data-frame="{{number}}" src="{{source}}" loading="lazy" width="{{width}}" height="{{height}}" alt="Frame {{number}} of {{name}}">{{/frames}}</div>{{/hasFrames}}{{/media}}
        {{^media}}{{#zoomURL}}<p class="hint">Click the picture or press z for its full size.</p>{{/zoomURL}}{{/media}}{{/stack}}{{/text}}
        <dl class="attributes">
        {{#attributes}}<dt>{{label}}</dt><dd>{{value}}</dd>{{/attributes}}
        </dl>
        <p><a id="original" href="{{documentURL}}">Open the original</a> · <a href="{{itemURL}}">JSON</a></p>
        </main>
        </body>
        </html>
        """

    /// The list of containers, when one server serves several.
    static let site = """
        {{> head}}
        <body class="site-page">
        <header class="bar"><h1>{{title}}</h1>{{> account}}</header>
        <main>
        <ul class="containers">
        {{#containers}}<li><a href="{{url}}">{{name}}</a> <span class="meta">{{totals}}</span></li>{{/containers}}
        </ul>
        </main>
        </body>
        </html>
        """
}
