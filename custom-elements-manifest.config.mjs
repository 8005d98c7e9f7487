/**
 * The analyzer's options beyond the command line in package.json's build script (cem looks for this file by name).
 *
 * An element's events are its class's `@fires`. The analyzer also lists each `this.dispatchEvent(new
 * CustomEvent(x))` it finds in a method, and names the event after the expression's text: an `emit(name, detail)`
 * method so ships an event called "name", with no description. Such an event, whose name is a variable, is dropped
 * here; the one whose name is a string literal stays (and scripts/framework-types.ts fails the build if it has no
 * description).
 */
const eventsNamedByVariables = {
  name: 'events-named-by-variables',
  analyzePhase({ ts, node, moduleDoc }) {
    if (!ts.isClassDeclaration(node) || !node.name) return;
    const variables = new Set();
    const visit = (child) => {
      if (
        ts.isCallExpression(child) &&
        ts.isPropertyAccessExpression(child.expression) &&
        child.expression.expression.kind === ts.SyntaxKind.ThisKeyword &&
        child.expression.name.text === 'dispatchEvent'
      ) {
        const created = child.arguments[0];
        const name = created && ts.isNewExpression(created) ? created.arguments?.[0] : undefined;
        if (name && ts.isIdentifier(name)) variables.add(name.text);
      }
      ts.forEachChild(child, visit);
    };
    visit(node);
    const declaration = moduleDoc.declarations.find((d) => d.name === node.name.text);
    if (declaration?.events)
      declaration.events = declaration.events.filter((e) => e.description || !variables.has(e.name));
  },
};

export default { plugins: [eventsNamedByVariables] };
