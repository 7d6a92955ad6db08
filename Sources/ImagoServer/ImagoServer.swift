import Hummingbird
import ServiceLifecycle
import Prometheus
import Crypto
