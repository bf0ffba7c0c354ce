/// Limits of business hours definitions.
extension Limits {
    /// The most opening intervals one weekday may have: 12.
    public static let maxIntervalsPerDay = 12
    /// The most holidays one schedule may list: 400 (a year ahead and then some).
    public static let maxHolidays = 400
}
