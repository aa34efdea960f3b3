"""fumarole against a Kubernetes cluster (issue 17).

* ``writes``: a cycle's decisions as the Kubernetes requests that carry them out (``v1`` Binding,
  ``policy/v1`` Eviction, pod and PodGroup status patches), in decision order; ``fumarole schedule
  --format k8s`` prints them as one YAML stream, ``fumarole run`` sends them;
* ``state``: the cluster cache fed by list and watch events, with the scheduler's own writes kept as
  assumptions until the API server's events confirm them (and rolled back when a write fails);
* ``loop``: event -> cache -> session -> writer, the live loop's core, without any client;
* ``client``: the official ``kubernetes`` client (the ``live`` extra): the watchers and the writer;
* ``metrics``: ``/metrics`` (Prometheus text) and ``/healthz``.

docs/running-against-a-cluster.md is the user's page.
"""
