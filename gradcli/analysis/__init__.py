"""What the CLI and REPL compute beyond running a program: evaluation with leaves and outputs,
recorded graphs, backward traces, explanations of zero gradients, Jacobians and Hessians.
Nothing here prints; `gradcli.render` turns the results into text, rich or JSON."""
