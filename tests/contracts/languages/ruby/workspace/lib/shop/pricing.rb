module Shop
  module Pricing
    def price; 10; end
  end
end
