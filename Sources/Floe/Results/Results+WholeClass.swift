@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// Results that hold every object of one class, with no predicate: what a deletion of all of
/// them can drop at once.
protocol WholeClassResults {
    /// The context and class of the results when they hold every object of the class; nil
    /// for results with a predicate or an order.
    var everyObjectOfClass: (context: ObjectContext, type: ObjectBase.Type)? { get }
}

extension Results: WholeClassResults {
    var everyObjectOfClass: (context: ObjectContext, type: ObjectBase.Type)? {
        query == nil ? (context, elementType) : nil
    }
}
