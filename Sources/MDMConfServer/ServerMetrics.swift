import Metrics
import Prometheus

/// The process's Prometheus registry, bootstrapped into swift-metrics once (request counts and latency
/// histograms come from Hummingbird's `MetricsMiddleware`; the catalog metrics are ours).
public enum ServerMetrics {
    /// The registry `/metrics` renders; the first use bootstraps swift-metrics with it.
    public static let registry: PrometheusCollectorRegistry = {
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        return registry
    }()

    static let catalogGeneration: Metrics.Gauge = {
        _ = registry
        return Metrics.Gauge(label: "mdmconf_catalog_generation")
    }()

    static let reloadFailures: Metrics.Counter = {
        _ = registry
        return Metrics.Counter(label: "mdmconf_catalog_reload_failures_total")
    }()

    /// The Prometheus text exposition of every metric.
    static func exposition() -> [UInt8] {
        var buffer: [UInt8] = []
        registry.emit(into: &buffer)
        return buffer
    }
}
