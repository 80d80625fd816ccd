# `make check-dashboard`: the Grafana dashboard examples/grafana/xpu-overview.json against
# @grafana/schema's types and a real Prometheus scraping xpud (tests/grafana/dashboard.sh). Needs
# a build (make build-tests), root, node and npm with the registry reachable, and prometheus.
# make check runs the same script through tests/run-tests.sh.
.PHONY: check-dashboard
check-dashboard:
	sh tests/grafana/dashboard.sh
