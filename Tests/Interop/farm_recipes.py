#!/usr/bin/env python3
"""Checks and runs the farm recipes of docs/farm/ without their schedulers.

    farm_recipes.py k8s MANIFEST MEDIA_DIR
        Validates the Kubernetes manifest's structure (an Indexed Job whose pods render shard
        JOB_COMPLETION_INDEX + 1 of `completions`, and a suspended concat Job), then runs each
        pod's command with /bin/sh the way the kubelet would: JOB_COMPLETION_INDEX = 0 … N-1, the
        container's env, MEDIA pointing at MEDIA_DIR. Kubernetes itself cannot run here.
    farm_recipes.py openjd TEMPLATE SOURCE OUTDIR OUTPUT SHARDS
        Decodes the template with openjd-model (the Open Job Description reference model), expands
        the Render step's parameter space and runs every task's script, then the Concat step's.

`cinepack` must be on PATH. Prints one JSON line describing what ran; exits 1 with a message
on the first problem.
"""
import json
import os
import subprocess
import sys

import yaml


def fail(message):
    print(message, file=sys.stderr)
    sys.exit(1)


def container_command(job):
    containers = job["spec"]["template"]["spec"]["containers"]
    if len(containers) != 1:
        fail(f"job {job['metadata']['name']}: expected one container, found {len(containers)}")
    c = containers[0]
    env = {e["name"]: str(e["value"]) for e in c.get("env", [])}
    return c["command"], env


def run_k8s(manifest, media):
    docs = [d for d in yaml.safe_load_all(open(manifest)) if d]
    if len(docs) != 2 or any(d.get("kind") != "Job" or d.get("apiVersion") != "batch/v1" for d in docs):
        fail("the manifest must hold two batch/v1 Jobs (render, concat)")
    render, concat = docs
    spec = render["spec"]
    if spec.get("completionMode") != "Indexed":
        fail("the render Job must have completionMode: Indexed")
    n = spec.get("completions")
    if not isinstance(n, int) or n < 1 or spec.get("parallelism") != n:
        fail("the render Job needs completions = parallelism = N")
    if render["spec"]["template"]["spec"].get("restartPolicy") != "Never":
        fail("the render pods need restartPolicy: Never (a failed index is retried as a new pod)")
    command, env = container_command(render)
    script = command[-1]
    if command[:2] != ["/bin/sh", "-c"] or "JOB_COMPLETION_INDEX" not in script or "--shard" not in script:
        fail("the render command must derive --shard from JOB_COMPLETION_INDEX")
    if env.get("SHARDS") != str(n):
        fail(f"SHARDS={env.get('SHARDS')} does not match completions={n}")
    if not concat["spec"].get("suspend") or concat["spec"].get("completions", 1) != 1:
        fail("the concat Job must be one suspended pod (resumed when the render Job completes)")
    concat_command, concat_env = container_command(concat)
    if "concat" not in concat_command[-1]:
        fail("the concat Job must run cinepack concat")
    for index in range(n):
        pod_env = dict(os.environ, **env)
        pod_env.update(MEDIA=media, JOB_COMPLETION_INDEX=str(index))
        subprocess.run(command, env=pod_env, check=True, timeout=300)
    concat_env = dict(os.environ, **concat_env)
    concat_env["MEDIA"] = media
    subprocess.run(concat_command, env=concat_env, check=True, timeout=300)
    print(json.dumps({"recipe": "k8s", "shards": n, "output": os.path.join(media, "rendered.mov")}))


def run_openjd(template_path, source, outdir, output, shards):
    from openjd.model import (ParameterValue, ParameterValueType, StepParameterSpaceIterator, create_job,
                              decode_job_template)

    template = decode_job_template(template=yaml.safe_load(open(template_path)))
    values = {
        "Source": ParameterValue(type=ParameterValueType.PATH, value=source),
        "OutDir": ParameterValue(type=ParameterValueType.PATH, value=outdir),
        "Output": ParameterValue(type=ParameterValueType.PATH, value=output),
        "Shards": ParameterValue(type=ParameterValueType.INT, value=str(shards)),
        "RenderOptions": ParameterValue(type=ParameterValueType.STRING, value="--quality preview"),
    }
    job = create_job(job_template=template, job_parameter_values=values)
    steps = {s.name: s for s in job.steps}
    if set(steps) != {"Render", "Concat"} or steps["Concat"].dependencies[0].dependsOn != "Render":
        fail("the template needs a Render step and a Concat step that depends on it")

    def substitute(text, task):
        # What a worker does with the step's format strings: job parameters, then task parameters.
        for name, value in values.items():
            text = text.replace("{{Param.%s}}" % name, value.value)
        for name, value in task.items():
            text = text.replace("{{Task.Param.%s}}" % name, value.value)
        return text

    tasks = list(StepParameterSpaceIterator(space=steps["Render"].parameterSpace))
    for task in tasks:
        subprocess.run(["bash", "-c", substitute(steps["Render"].script.embeddedFiles[0].data, task)], check=True, timeout=300)
    subprocess.run(["bash", "-c", substitute(steps["Concat"].script.embeddedFiles[0].data, {})], check=True, timeout=300)
    print(json.dumps({"recipe": "openjd", "tasks": len(tasks), "output": output}))


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "k8s":
        run_k8s(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 7 and sys.argv[1] == "openjd":
        run_openjd(*sys.argv[2:6], int(sys.argv[6]))
    else:
        fail(__doc__)
