# `make check-manifests`: the offline checks of examples/kubernetes (schemas, unknown fields, CEL,
# broken copies, facts; tests/k8s/manifests.sh). Needs node and npm with the registry reachable.
# make check runs the same script through tests/run-tests.sh.
.PHONY: check-manifests
check-manifests:
	sh tests/k8s/manifests.sh
