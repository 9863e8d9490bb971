// A board region redraws only when its inputs differ from the ones it last drew.

/**
 * Wrap `draw(inputs, ...helpers)` so that it runs only for inputs unlike the last ones (compared
 * as JSON: the server sends plain data; helpers such as name lookups are not compared).
 * Returns a function that says whether it drew.
 */
export function region(draw) {
  let last;
  return (inputs, ...helpers) => {
    const key = JSON.stringify(inputs);
    if (key === last) return false;
    last = key;
    draw(inputs, ...helpers);
    return true;
  };
}
