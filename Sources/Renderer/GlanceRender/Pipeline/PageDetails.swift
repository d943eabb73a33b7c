import GlanceCore

extension DocumentDetails {
    /// The details of a document of `pageCount` pages, with every page's size (in points) from
    /// `size` when `readsSizes`: the sizes are left out when one cannot be read, or when they
    /// change more often than ``maximumPageRuns`` times. The one loop of the paged renderers.
    init(pageCount: Int, readsSizes: Bool, size: (Int) -> (width: Double, height: Double)?) {
        self.init(pageCount: pageCount)
        guard readsSizes else { return }
        for index in 0..<pageCount {
            guard let (width, height) = size(index) else {
                pageSizes = nil
                return
            }
            appendPage(width: width, height: height)
            if (pageSizes?.count ?? 0) > Self.maximumPageRuns {
                pageSizes = nil
                return
            }
        }
    }
}
