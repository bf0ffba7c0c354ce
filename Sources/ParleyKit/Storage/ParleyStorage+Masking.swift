import ParleyCore

extension ParleyStorage {
    /// Keeps nothing: a storage written before masking rules were kept. The client then applies
    /// the built-in rules at each start until it has read the app's from the server.
    /// - Returns: nil.
    public func loadMaskingRules() throws -> MaskingRules? { nil }

    /// Keeps nothing (see ``loadMaskingRules()``).
    /// - Parameter rules: the rules, not kept.
    public func saveMaskingRules(_ rules: MaskingRules) throws {}
}
