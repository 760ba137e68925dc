export { ExpressionEngine, type ExpressionEngineDeps, type ExpressionScope } from './engine';
export { DEFAULT_EXPRESSION_LIMITS, type ExpressionLimits } from './expression-limits';
export { WorkBudget } from './work-budget';
