# Glance: the two commands a fresh Debian machine needs are `make demo` and `make test`.
# Both install the missing Debian packages first (with sudo when not root).

SWIFT        ?= swift
# SwiftPM plans a build again, and recompiles and relinks part of it (45-55 s for the release
# build here), whenever its environment differs from the last build's. make adds variables of its
# own (MAKELEVEL differs at each level of recursion) and exports every variable given on its
# command line (make install DESTDIR=...), so each swift command runs without them: make test,
# which calls make install and make test-deb, had rebuilt the release three times.
SWIFT_ENV    := $(strip env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS -u MAKEOVERRIDES \
                $(foreach v,$(.VARIABLES),$(if $(filter command line,$(origin $(v))),-u $(v))))
# The release build links the Swift runtime in (see STATIC_FLAGS): the one `make demo`, `make bench`
# and `make install` use.
GLANCE       := .build-static/release/glance
DEMO_DIR     := demo-container
DEB_PACKAGES := pkg-config libpng-dev libjpeg62-turbo-dev libpoppler-glib-dev libpango1.0-dev \
                libcairo2-dev libuchardet-dev libsqlite3-dev libssl-dev libseccomp-dev liblcms2-dev libcrypt-dev libwebp-dev libchafa-dev \
                libgif-dev libtiff-dev libheif-dev librsvg2-dev libavformat-dev libavcodec-dev libavutil-dev libswscale-dev \
                libarchive-dev libreofficekit-dev libraw-dev libgdk-pixbuf-2.0-0 libzstd-dev libbz2-dev liblzma-dev libjxl-dev libgs-dev libdjvulibre-dev libgxps-dev libopenjp2-7-dev libopenexr-dev \
                git fonts-dejavu-core fonts-wqy-microhei
# LibreOffice, which draws office documents in the office renderers (make demo shows some, the
# tests draw every kind). Installed without its recommends (Java, extra fonts, a desktop's
# integration), as the packages with a user interface: the -nogui ones lack the Calc files
# LibreOfficeKit needs to open a sheet.
OFFICE_PACKAGES := libreoffice-writer libreoffice-calc libreoffice-impress libreoffice-draw
# What only the tests need: a real browser for the pages (driven by Selenium), GIO (the desktop cache's client),
# bubblewrap (the renderers' sandbox, which the tests expect to work, and GNOME's for thumbnailers),
# ImageMagick with Debian's sRGB profile (the reference the colour tests compare against), and
# PostgreSQL's server (the tests initdb one into a temporary folder; none is left running), poppler-utils
# (pdftocairo: what a PDF page other than the first is compared with), and
# openssl and curl (test certificates, and a client for TLS and HTTP/2), xterm under Xvfb and tmux
# (real terminals for list --preview) and libsixel's sixel2png (what decodes the sixel written),
# libheif's heif-convert (a HEIC with its profile for ImageMagick, which reads none),
# lintian and man (the Debian package's checks), strace (what a renderer opens, seen from outside it).
TEST_PACKAGES := chromium chromium-driver python3-selenium libglib2.0-bin bubblewrap imagemagick icc-profiles-free postgresql \
                 poppler-utils \
                 openssl curl \
                 xterm xvfb tmux libsixel-bin libheif-examples \
                 lintian man-db systemd strace
SUDO         := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# The release build, and make install's: a build of its own with the Swift runtime linked in, so
# that the installed programs need nothing of the toolchain (GNOME runs thumbnailers in a sandbox
# that shows only /usr), and so that every start of glance and of each renderer skips the dynamic
# linking of the runtime's libraries (about 6 ms a process). The two libraries are ones
# Foundation's static archive needs but does not name. A plain `swift build -c release` still
# works (in .build/release, with the shared runtime); the flags go to every module, so one build
# folder cannot serve both without rebuilding everything. --disable-local-rpath: with nothing
# of the runtime to find beside them, a `$ORIGIN` search path only made the loader look there
# first (and in its glibc-hwcaps and tls subfolders) for each of a renderer's 45 libraries.
PREFIX         ?= /usr/local
DESTDIR        ?=
INSTALL_CONFIG ?= release
STATIC_BUILD   := .build-static
STATIC_FLAGS   := --static-swift-stdlib --disable-local-rpath -Xlinker -l_FoundationCollections -Xlinker -l_FoundationCShims
THUMBNAILER_STAGE := $(STATIC_BUILD)/stage
MANUAL_DIR     := .build/plugins/GenerateManual/outputs/glance

.PHONY: all deps test-deps build release test check test-browser test-terminal test-thumbnailer test-deb manual deb demo install \
        uninstall lint format \
        conformance assets clean fuzz docs

all: build

# Installs the Debian packages of $(1) that are missing, with apt-get's options $(2).
define install_missing
	@missing=""; for p in $(1); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "Installing:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $(2) $$missing; \
	fi
endef

## deps: install the Debian packages that are missing (C libraries, fonts, LibreOffice).
deps:
	$(call install_missing,$(DEB_PACKAGES))
	$(call install_missing,$(OFFICE_PACKAGES),--no-install-recommends)

## test-deps: and what the tests need besides (headless Chromium and chromedriver), and axe-core
## (PyPI's axe-playwright-python wheel, whose axe.min.js the browser test runs over every page
## kind), downloaded once into $(AXE_DIR), never into the repository.
AXE_DIR := .build/axe
test-deps: deps
	$(call install_missing,$(TEST_PACKAGES))
	@ls $(AXE_DIR)/axe_playwright_python-*.whl >/dev/null 2>&1 || \
	  python3 -m pip download --quiet --no-deps --dest $(AXE_DIR) axe-playwright-python==0.1.8

## build: debug build.
build: deps
	$(SWIFT_ENV) $(SWIFT) build

## release: optimised build of glance and glance-renderer, the Swift runtime linked in
## (.build-static/release/).
release: deps
	$(SWIFT_ENV) $(SWIFT) build -c release --scratch-path $(STATIC_BUILD) $(STATIC_FLAGS)
	@# The test hooks (a file deleted and a link planted, a renderer that crashes, hangs or tries to
	@# escape) exist in debug builds only.
	@if $(STATIC_BUILD)/release/glance generate --help-hidden | grep -q -- --debug-; then \
	  echo "release: glance still has --debug-* options"; exit 1; fi
	@if ! $(STATIC_BUILD)/release/glance-renderer --debug-crash-on x </dev/null 2>&1 | grep -q 'unknown option'; then \
	  echo "release: glance-renderer still takes --debug-crash-on"; exit 1; fi

# How many tests Swift Testing runs at once: one per core. Its default (twice the cores) ran
# four process-heavy tests at once on a 2-core machine, and tests that give a render a second, or
# a stop two, missed their marks under that load; at one per core the single pass took 180 s for
# 480 tests here (the two passes it replaced, 197 s). No test blocks a thread of the cooperative
# pool while it waits (a child process, a socket, a pool's stop: GlanceTestSupport's
# onThreadOfItsOwn), so the in-process watcher's and hook server's work is never starved.
TEST_WIDTH   ?= $(shell nproc)

## test: the whole test suite (Swift Testing, in one pass), the pages in a real browser, glance
## serve against hostile requests, glance.thumbnailer under bubblewrap, the Debian package, and
## the library's DocC without a warning.
test: test-deps
	$(SWIFT_ENV) $(SWIFT) build --build-tests
	@# The run's log ends with a recap of what failed (the issues each failed test recorded), so
	@# that the tail of a CI log, often all that is kept, names the failure.
	@{ $(SWIFT_ENV) SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=$(TEST_WIDTH) $(SWIFT) test --skip-build 2>&1; \
	  echo $$? > .build/swift-test.status; } | tee .build/swift-test.log; \
	status=$$(cat .build/swift-test.status); \
	if [ "$$status" != 0 ]; then \
	  echo "== swift test failed (exit $$status); what failed:"; \
	  grep -a '^✘\|^↳' .build/swift-test.log | grep -av '^✘ Suite\|^✘ Test run' | tail -n 60; \
	fi; \
	exit $$status
	@# The end-to-end suites run against the release build that ships (the one make demo, the
	@# thumbnailer check and the package use), not the debug one the Swift tests ran.
	$(MAKE) --no-print-directory release
	python3 Tests/EndToEnd/Browser/test_pages.py --glance $(STATIC_BUILD)/release/glance
	python3 Tests/EndToEnd/Server/test_hostile_requests.py --glance $(STATIC_BUILD)/release/glance
	python3 Tests/EndToEnd/Server/test_live_limits.py --glance $(STATIC_BUILD)/release/glance
	python3 Tests/EndToEnd/Terminal/test_terminal.py --glance $(STATIC_BUILD)/release/glance
	$(MAKE) --no-print-directory test-thumbnailer
	$(MAKE) --no-print-directory test-deb
	$(MAKE) --no-print-directory docs

## check: the quick loop while editing: an incremental build and the library's tests, without
## the command-line suites (which start glance processes and servers), the browser, terminal,
## thumbnailer and package checks. make test runs everything.
check: build
	$(SWIFT_ENV) $(SWIFT) build --build-tests
	$(SWIFT_ENV) SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=$(TEST_WIDTH) $(SWIFT) test --skip-build --skip GlanceCLITests

## test-thumbnailer: install into a staging folder (the release build, which make deb and make
## bench-check use too: one build of the three) and run glance.thumbnailer's Exec line under
## bubblewrap the way GNOME runs thumbnailers.
test-thumbnailer: test-deps release
	rm -rf $(THUMBNAILER_STAGE)
	$(MAKE) --no-print-directory install DESTDIR=$(abspath $(THUMBNAILER_STAGE)) PREFIX=/usr/local
	python3 Tests/EndToEnd/Desktop/test_thumbnailer.py --prefix $(THUMBNAILER_STAGE)/usr/local --assets TestAssets

## install: glance, glance-renderer and glance.thumbnailer into $(DESTDIR)$(PREFIX) (bin/ and
## share/thumbnailers/), built with the Swift runtime linked in.
install: deps
	$(SWIFT_ENV) $(SWIFT) build -c $(INSTALL_CONFIG) --scratch-path $(STATIC_BUILD) $(STATIC_FLAGS)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/thumbnailers
	install -m 755 $(STATIC_BUILD)/$(INSTALL_CONFIG)/glance $(STATIC_BUILD)/$(INSTALL_CONFIG)/glance-renderer \
	  $(DESTDIR)$(PREFIX)/bin/
	install -m 644 dist/glance.thumbnailer $(DESTDIR)$(PREFIX)/share/thumbnailers/

## uninstall: remove what install put in $(DESTDIR)$(PREFIX) (and glance-worker, the renderer's earlier name).
uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/glance $(DESTDIR)$(PREFIX)/bin/glance-renderer $(DESTDIR)$(PREFIX)/bin/glance-worker \
	  $(DESTDIR)$(PREFIX)/share/thumbnailers/glance.thumbnailer

## test-browser: the grid and preview pages in headless Chromium through chromedriver, against
## the release build that ships; screenshots in .build/browser-screenshots/.
test-browser: test-deps release
	python3 Tests/EndToEnd/Browser/test_pages.py --glance $(STATIC_BUILD)/release/glance

## manual: man pages for glance and each of its commands, by swift-argument-parser's plugin from
## the debug build (the same text as a release build's), in $(MANUAL_DIR).
manual:
	$(SWIFT_ENV) $(SWIFT) package --allow-writing-to-package-directory generate-manual --multi-page --configuration debug

## deb: the Debian package (.build/deb/glance_VERSION-1_ARCH.deb) of the release build: both
## programs, the systemd units, the .thumbnailer, man pages and completions (dist/build-deb.sh).
deb: release manual
	mkdir -p .build/deb
	dist/build-deb.sh $(STATIC_BUILD)/release $(MANUAL_DIR) .build/deb

## test-deb: the package of the release build (the one make deb makes) checked by lintian,
## installed on this machine, used and purged (Tests/EndToEnd/Package/test_deb.py; run as root).
test-deb: test-deps release manual
	mkdir -p .build/deb-test
	DEB_COMPRESSION="-Zgzip -z1" dist/build-deb.sh $(STATIC_BUILD)/release $(MANUAL_DIR) .build/deb-test > .build/deb-test/name
	python3 Tests/EndToEnd/Package/test_deb.py --deb "$$(cat .build/deb-test/name)"

## test-terminal: glance list --preview in xterm (sixel) under Xvfb and in tmux (symbols), against
## the release build that ships; screenshots in .build/terminal-screenshots/.
test-terminal: test-deps release
	python3 Tests/EndToEnd/Terminal/test_terminal.py --glance $(STATIC_BUILD)/release/glance

## demo: copy the sample documents into a container, generate their thumbnails, list them.
demo: release
	@rm -rf $(DEMO_DIR) && mkdir -p $(DEMO_DIR)
	@cp -R TestAssets/samples/. $(DEMO_DIR)/
	@cp TestAssets/media/fade-in.mp4 $(DEMO_DIR)/clip.mp4 && cp TestAssets/media/cover.mp3 $(DEMO_DIR)/song.mp3
	@cp TestAssets/office/letter.docx TestAssets/office/budget.xlsx TestAssets/office/deck.pptx $(DEMO_DIR)/
	@cp TestAssets/raw/preview.dng $(DEMO_DIR)/photo.dng && cp TestAssets/ebook/cover-meta.epub $(DEMO_DIR)/book.epub \
	  && cp TestAssets/comics/natural.cbr $(DEMO_DIR)/comic.cbr
	$(GLANCE) generate $(DEMO_DIR)
	$(GLANCE) list $(DEMO_DIR)
	@echo
	@echo "The thumbnails are in $(DEMO_DIR)/.thumbnails/ (an SQLite store). Try:"
	@echo "  $(GLANCE) show $(DEMO_DIR) photo.jpg"
	@echo "  $(GLANCE) export $(DEMO_DIR) photo.jpg -o photo-thumbnail.jpg"
	@echo "  $(GLANCE) show $(DEMO_DIR) clip.mp4      (a video: its frame, length and codecs)"
	@echo "  $(GLANCE) show $(DEMO_DIR) budget.xlsx   (a workbook drawn by LibreOffice: its sheets are its pages)"

## docs: the README's and docs/' pages checked (every link leads to a file of the tree, every
## option they name is glance's: docs/check_docs.py), and the Glance library's documentation
## (DocC, from the toolchain) in .build/docs, any warning (a broken link, say) an error. The
## symbol graph is read from the debug build's modules.
docs: build
	python3 docs/check_docs.py --glance .build/debug/glance
	@rm -rf .build/docs .build/symbol-graphs && mkdir -p .build/symbol-graphs
	@maps=""; for m in .build/debug/*.build/module.modulemap Sources/Renderer/CGraphics/module.modulemap \
	  Sources/Renderer/CUchardet/module.modulemap $$(find .build/checkouts -name module.modulemap -path '*GRDBSQLite*'); do \
	  maps="$$maps -Xcc -fmodule-map-file=$$m"; done; \
	includes=""; for d in Sources/*/C*/include $$(find .build/checkouts -path '*/include' -type d); do \
	  includes="$$includes -Xcc -I$$d"; done; \
	$(SWIFT) symbolgraph-extract -module-name Glance -I .build/debug/Modules $$maps $$includes \
	  -target $$(uname -m)-unknown-linux-gnu -minimum-access-level public -output-dir .build/symbol-graphs
	docc convert Sources/Library/Glance/Glance.docc --additional-symbol-graph-dir .build/symbol-graphs \
	  --output-path .build/docs --fallback-display-name Glance --fallback-bundle-identifier org.glance.Glance \
	  --warnings-as-errors

## lint: check formatting with swift-format (ships with the toolchain), and that
## docs/architecture.md shows every module's edges as the code has them.
lint:
	$(SWIFT) format lint --strict --recursive Package.swift Sources Tests Fuzz Examples bench/floor
	python3 docs/check_architecture.py

## format: rewrite the sources in the project's format.
format:
	$(SWIFT) format format --in-place --recursive Package.swift Sources Tests Fuzz Examples bench/floor

## conformance: the shared conformance corpus (../shared/corpus) against the release build.
conformance: release
	python3 ../shared/conformance.py --glance $(GLANCE)

## assets: regenerate TestAssets/ (needs imagemagick, libjpeg-turbo-progs, qpdf, webp, libheif-examples, libjxl-tools, djvulibre-bin, ghostscript, fontTools and brotli (pip; the fonts are the same bytes for the same fontTools),
## gifsicle, libtiff-tools, ffmpeg).
assets:
	python3 TestAssets/generate.py

clean:
	rm -rf .build $(STATIC_BUILD) $(FUZZ_BUILD) $(DEMO_DIR)

## fuzz: build the libFuzzer targets (JPEG, PNG, PDF, text, WebP, GIF, TIFF, HEIF, SVG, videos,
## camera raw, archives: e-books and comic books, bitmaps: BMP, icons, Targa, Netpbm, PCX, SGI, Sun raster, JPEG XL, JPEG 2000, Photoshop, PostScript, DjVu, XPS, fonts, SketchUp and InDesign previews, Blender files, Mobipocket books, ICC profiles, the worker protocol) with AddressSanitizer in .build-fuzz/ and run each for SECONDS (default 60) from
## TestAssets/ seeds; findings go to .build-fuzz/findings/ (Fuzz/run.py says more).
FUZZ_BUILD := .build-fuzz
FUZZERS    := jpeg png pdf text webp gif tiff heif jxl jpeg2000 psd postscript djvu xps font carried svg media raw archive bitmap blend mobi icc renderer-reply
SECONDS    ?= 60
fuzz: deps
	for fuzzer in $(FUZZERS); do \
	  $(SWIFT_ENV) GLANCE_FUZZ=1 $(SWIFT) build --scratch-path $(FUZZ_BUILD) --sanitize=fuzzer --sanitize=address \
	    --product fuzz-$$fuzzer || exit 1; \
	done
	python3 Fuzz/run.py --build $(FUZZ_BUILD) --assets TestAssets --seconds $(SECONDS)

## bench-check: the bench that fails (bench/check.py, a few minutes): Glance's rates against
## vipsthumbnail, pango-view and nginx, and against the glance-renderer of the commit named in
## bench/thresholds.json (built once into .build-baseline/), each median of paired rounds
## compared with its threshold there; and videos, office documents, camera raw and books against
## their tools, once each through their own extras (their corpora made once: about 8 minutes).
## Exit 1 on a loss past a threshold.
BENCH_CHECK_PACKAGES := libvips-tools libjxl-tools djvulibre-bin libgxps-utils ghostscript gnome-font-viewer imagemagick poppler-utils libjpeg-turbo-progs pango1.0-tools wrk nginx-light \
                        python3-numpy ffmpeg ffmpegthumbnailer libraw-bin
BASELINE_COMMIT = $(shell python3 -c 'import json; print(json.load(open("bench/thresholds.json"))["baseline"]["commit"])')
BASELINE_DIR = .build-baseline/$(BASELINE_COMMIT)

.PHONY: bench-check baseline-renderer
bench-check: release baseline-renderer
	$(call install_missing,$(BENCH_CHECK_PACKAGES))
	$(SWIFT_ENV) $(SWIFT) build -c release --product bench-floor
	python3 bench/check.py --glance $(STATIC_BUILD)/release/glance --baseline-renderer $(BASELINE_DIR)/glance-renderer \
	  --floor .build/release/bench-floor

## baseline-renderer: the glance-renderer of bench/thresholds.json's baseline commit, built from
## that commit's tree (git archive) with the release's flags, once.
baseline-renderer: deps
	@if [ ! -x $(BASELINE_DIR)/glance-renderer ]; then \
	  git cat-file -e $(BASELINE_COMMIT)^{commit} 2>/dev/null || \
	    { echo "bench-check: commit $(BASELINE_COMMIT) is not in this clone (fetch its history)"; exit 2; }; \
	  rm -rf $(BASELINE_DIR) && mkdir -p $(BASELINE_DIR)/src && \
	  git archive $(BASELINE_COMMIT) | tar -x -C $(BASELINE_DIR)/src && \
	  ( cd $(BASELINE_DIR)/src && $(SWIFT_ENV) $(SWIFT) build -c release --product glance-renderer --scratch-path ../build \
	      $(STATIC_FLAGS) ) && \
	  cp $(BASELINE_DIR)/build/release/glance-renderer $(BASELINE_DIR)/glance-renderer; \
	fi

## bench: Glance against vipsthumbnail, ImageMagick, GraphicsMagick, pdftoppm and pango-view:
## speed, memory, quality (bench/README.md). Small corpus by default, BENCH_SCALE=1 for the full
## one. Installs the anchors when missing, builds the release glance, runs bench/run.py.
BENCH_PACKAGES := libvips-tools libjxl-tools djvulibre-bin libgxps-utils ghostscript gnome-font-viewer imagemagick graphicsmagick poppler-utils libjpeg-turbo-progs icc-profiles-free \
                  pango1.0-tools time wrk nginx-light libgdk-pixbuf2.0-bin evince postgresql webp libheif-examples \
                  librsvg2-bin ffmpeg ffmpegthumbnailer libraw-bin

.PHONY: bench
bench: release
	@missing=""; for p in $(BENCH_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; \
	done; \
	python3 -c 'import numpy, scipy' 2>/dev/null || missing="$$missing python3-numpy python3-scipy"; \
	if [ -n "$$missing" ]; then \
	  echo "Installing:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi
	@python3 -c 'import numpy, scipy' || { echo "bench: python3 needs numpy and scipy"; exit 1; }
	GLANCE=$(GLANCE) python3 bench/run.py
