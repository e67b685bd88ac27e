#!/usr/bin/python3
# The client matrix, Python part: Debian's python3-kubernetes (the typed CoreV1Api and the
# dynamic client) against the emulator at --server. Each scenario writes DIR/NAME.out:
# "ok NAME: <what it saw>", or "not ok NAME: <what went wrong>" and the traceback.
#   python-client.py --server URL --out DIR    runs every scenario
#   python-client.py --list                    prints the scenarios' names
import argparse
import os
import sys
import traceback

SCENARIOS = []


def scenario(fn):
    SCENARIOS.append(fn)
    return fn


def name_of(fn):
    return fn.__name__.replace("_", "-")


def expect(what, got, want):
    if got != want:
        raise AssertionError("%s: expected %r, got %r" % (what, want, got))


@scenario
def typed_list_read(api, _dyn):
    names = [n.metadata.name for n in api.list_namespace().items]
    for want in ("default", "nodus"):
        if want not in names:
            raise AssertionError("list_namespace: no %s in %r" % (want, names))
    ns = api.read_namespace("default")
    expect("read_namespace kind", ns.kind, "Namespace")
    expect("read_namespace name", ns.metadata.name, "default")
    return "list_namespace has default and nodus; read_namespace(default) is a Namespace"


@scenario
def patch_namespace(api, _dyn):
    from kubernetes import client

    body = client.V1Namespace(metadata=client.V1ObjectMeta(
        name="py-patch", labels={"a": "1", "b": "2"}, finalizers=["example.com/a"]))
    api.create_namespace(body)
    # a dict: the client sends application/strategic-merge-patch+json
    api.patch_namespace("py-patch", {"metadata": {"labels": {"a": None, "c": "3"},
                                                  "finalizers": ["example.com/b"]}})
    ns = api.read_namespace("py-patch")
    labels = dict(ns.metadata.labels)
    labels.pop("kubernetes.io/metadata.name", None)
    expect("labels after the patch", labels, {"b": "2", "c": "3"})
    # strategic: metadata.finalizers merges (a merge patch would have replaced it)
    expect("finalizers after the patch", ns.metadata.finalizers,
           ["example.com/b", "example.com/a"])
    return "labels %s, finalizers %s" % (sorted(labels.items()), ns.metadata.finalizers)


@scenario
def dynamic_client(_api, dyn):
    import json

    from kubernetes.client.rest import ApiException

    images = dyn.resources.get(api_version="nodus.dev/v1", kind="Image")
    items = images.get(namespace="nodus").items
    if not items:
        raise AssertionError("no Image in project nodus")
    first = images.get(namespace="nodus", name=items[0].metadata.name)
    expect("the Image read by name", first.kind, "Image")
    # patch's default content type is strategic merge: a Namespace takes it ...
    namespaces = dyn.resources.get(api_version="v1", kind="Namespace")
    namespaces.patch(name="default", body={"metadata": {"labels": {"py-dynamic": "yes"}}})
    expect("the Namespace's label", namespaces.get(name="default").metadata.labels["py-dynamic"],
           "yes")
    # ... a nodus.dev kind refuses it as a custom resource does, and says what it takes
    jobs = dyn.resources.get(api_version="nodus.dev/v1", kind="Job")
    jobs.create(namespace="default", body={
        "apiVersion": "nodus.dev/v1", "kind": "Job", "metadata": {"name": "py-dyn"},
        "spec": {"image": "nodus/pytorch:2.8-cuda12.8", "command": ["python", "train.py"],
                 "maxCostUSD": "40.00"}})
    try:
        jobs.patch(namespace="default", name="py-dyn", body={"metadata": {"labels": {"a": "b"}}})
        raise AssertionError("a strategic merge patch of a Job was accepted")
    except ApiException as e:
        status = json.loads(e.body)
        expect("the refusal's code", (e.status, status["reason"]), (415, "UnsupportedMediaType"))
        if "--type merge" not in status.get("fix", ""):
            raise AssertionError("the refusal's fix names no merge patch: %r" % status)
    jobs.patch(namespace="default", name="py-dyn", body={"metadata": {"labels": {"a": "b"}}},
               content_type="application/merge-patch+json")
    expect("the Job's label after a merge patch",
           jobs.get(namespace="default", name="py-dyn").metadata.labels["a"], "b")
    return ("read Image %s; patched Namespace default (strategic); Job: strategic 415, "
            "merge patch applied" % first.metadata.name)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--server")
    p.add_argument("--out")
    p.add_argument("--list", action="store_true")
    args = p.parse_args()
    if args.list:
        for fn in SCENARIOS:
            print(name_of(fn))
        return 0
    from kubernetes import client, dynamic

    conf = client.Configuration()
    conf.host = args.server
    api_client = client.ApiClient(conf)
    api = client.CoreV1Api(api_client)
    dyn = dynamic.DynamicClient(api_client)
    failed = 0
    for fn in SCENARIOS:
        name = name_of(fn)
        with open(os.path.join(args.out, name + ".out"), "w") as out:
            try:
                out.write("ok %s: %s\n" % (name, fn(api, dyn)))
            except Exception as e:  # every failure is the scenario's report
                failed += 1
                out.write("not ok %s: %s\n%s" % (name, e, traceback.format_exc()))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
